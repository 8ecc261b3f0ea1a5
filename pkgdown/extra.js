/* Offline fallback for the "On this page" list of articles and help pages.
 * pkgdown fills it with bootstrap-toc, loaded from a CDN; a site read from
 * docs/ without a network (make site, then a browser on the files) would
 * show an empty list. Here the list is built from the page's own h2/h3
 * headings when bootstrap-toc did not load; with it, nothing happens. */
(function() {
  function build() {
    if (typeof Toc !== "undefined") return;
    var nav = document.getElementById("toc");
    if (!nav || nav.querySelector("ul")) return;
    var heads = document.querySelectorAll("main h2[id], main h3[id]");
    if (!heads.length) return;
    var ul = document.createElement("ul");
    ul.className = "nav nav-pills flex-column";
    heads.forEach(function(h) {
      var li = document.createElement("li");
      li.className = "nav-item";
      var a = document.createElement("a");
      a.className = "nav-link";
      a.href = "#" + h.id;
      a.textContent = h.textContent;
      if (h.tagName === "H3") a.style.paddingLeft = "2em";
      li.appendChild(a);
      ul.appendChild(li);
    });
    nav.appendChild(ul);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", build);
  } else {
    build();
  }
})();
