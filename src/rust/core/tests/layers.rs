//! The core's modules form layers without cycles (ARCHITECTURE.md): a
//! module uses only modules of its own layer or below, and no two modules
//! use each other, directly or through others. Read from the sources: every
//! `crate::<module>` outside comments is a use of that module (the files of
//! `src/fastx/` belong to `fastx`). The binding crate (`src/rust/src`, one
//! floor up) is read the same way: no cycle there either.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Bottom to top; a new module must be placed here.
const LAYERS: &[&[&str]] = &[
    &["alphabet", "error", "hits", "cigar", "arrow", "pool", "control", "validate", "overhang", "barcode_edits", "assign", "ends_policy"],
    &["options"],
    &["stepwise", "profile", "rc_filter", "worker", "edge_overhang"],
    &["sink", "hamming", "crispr", "strategy", "lanes", "ends"],
    &["engine"],
    &["fastx", "background"],
];

/// Module -> the modules it uses, for the core.
fn uses() -> BTreeMap<String, BTreeSet<String>> {
    uses_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// Module -> the modules it uses, for the crate whose sources are in `src`
/// (`lib.rs` is the crate's root, not a module; names that are no module's
/// file, such as the binding's `crate::guard()`, are not uses of a module).
fn uses_in(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") && p.file_stem().unwrap() != "lib" {
            files.push((p.file_stem().unwrap().to_string_lossy().into_owned(), p));
        } else if p.is_dir() {
            for f in std::fs::read_dir(&p).unwrap() {
                files.push((p.file_name().unwrap().to_string_lossy().into_owned(), f.unwrap().path()));
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let deps = graph.entry(module.clone()).or_default();
        for line in text.lines() {
            let code = line.split("//").next().unwrap();
            for (i, _) in code.match_indices("crate::") {
                let name: String = code[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                // `use crate::{a, b}` names several
                let names: Vec<String> = if name.is_empty() && code[i + 7..].starts_with('{') {
                    code[i + 8..].split('}').next().unwrap().split(',').map(|s| s.trim().split("::").next().unwrap().to_string()).collect()
                } else {
                    vec![name]
                };
                for n in names {
                    if !n.is_empty() && n != module && n.chars().next().unwrap().is_lowercase() {
                        deps.insert(n);
                    }
                }
            }
        }
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| modules.contains(d));
    }
    graph
}

fn layer_of(m: &str) -> usize {
    LAYERS.iter().position(|l| l.contains(&m)).unwrap_or_else(|| panic!("module `{m}` is in no layer of tests/layers.rs"))
}

#[test]
fn every_module_uses_only_its_layer_or_below() {
    for (m, deps) in uses() {
        for d in deps {
            assert!(layer_of(&d) <= layer_of(&m), "`{m}` (layer {}) uses `{d}` (layer {}), above it", layer_of(&m), layer_of(&d));
        }
    }
}

#[test]
fn no_module_uses_itself_through_others() {
    assert_no_cycle(&uses());
}

#[test]
fn no_module_of_the_binding_uses_itself_through_others() {
    let g = uses_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../src"));
    assert!(g["demux"].contains("fastx"), "{:?}", g["demux"]);
    assert_no_cycle(&g);
}

fn assert_no_cycle(g: &BTreeMap<String, BTreeSet<String>>) {
    // depth-first search from each module; a path back to it is a cycle
    for start in g.keys() {
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((m, path)) = stack.pop() {
            for d in g.get(&m).into_iter().flatten() {
                assert!(d != start, "a cycle: {} -> {d}", path.join(" -> "));
                if seen.insert(d.clone()) {
                    let mut p = path.clone();
                    p.push(d.clone());
                    stack.push((d.clone(), p));
                }
            }
        }
    }
}

#[test]
fn the_scan_sees_uses() {
    // the test itself: known edges are found
    let g = uses();
    assert!(g["engine"].contains("strategy"), "{:?}", g["engine"]);
    assert!(g["crispr"].contains("options"), "{:?}", g["crispr"]);
    assert!(g["fastx"].contains("error"), "{:?}", g["fastx"]);
}
