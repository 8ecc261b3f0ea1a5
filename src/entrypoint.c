/*
 * entrypoint.c: the library R loads (ducksassy.so), a small dispatcher.
 *
 * Why a dispatcher. sassy is fastest with the widest SIMD registers, and
 * Rust code compiled for AVX-512 or AVX2 may use those instructions anywhere
 * (rustc's -C target-cpu applies to every function, std and the vendored
 * crates included), so it must not run at all on a CPU without them. The
 * Rust library is therefore built once per SIMD backend, each into its own
 * shared object (src/Makevars.in: ducksassy_scalar.so, ducksassy_avx2.so,
 * ducksassy_avx512.so on x86-64; ducksassy_neon.so on aarch64), and this
 * file, compiled with R's ordinary flags (no -mavx*, no Rust), picks one at
 * load time, before any SIMD code runs. Alternatives considered:
 *   - Rust multiversioning of the hot functions (#[target_feature] +
 *     runtime detection): sassy's SIMD code is generic over its own vector
 *     types, compiled for the target features of the whole crate; it cannot
 *     be multiversioned from outside without patching the vendored crate,
 *     and a missed function would be an illegal instruction.
 *   - One package DLL per level registered by R (library.dynam() of the
 *     chosen one in .onLoad): then the routines live in a DLL named
 *     "ducksassy_avx2" and R/extendr-wrappers.R (.Call(wrap__x, ...)
 *     resolved through useDynLib) and the .registration = TRUE symbols would
 *     need rewriting per backend. Here the Rust routines are registered
 *     under ducksassy's own DllInfo, so the R side is unchanged.
 * The cost is one dlopen at load and the per-backend builds at install
 * (see the README's SIMD section).
 *
 * At load (R_init_ducksassy):
 *   1. The CPU is asked which backends it supports (__builtin_cpu_supports;
 *      no SIMD instructions in this file).
 *   2. The environment variable DUCKSASSY_BACKEND, when set (and not
 *      "auto"), asks for one backend, e.g. a lower one for tests or for
 *      identical behaviour across nodes. A value that names no backend
 *      loads nothing (R/zzz.R stops with a classed error); a backend that is
 *      not compiled in or that the CPU lacks is not used (R/zzz.R warns) and
 *      the best one is loaded instead. It never loads a backend the CPU lacks.
 *   3. The best supported backend (the requested one, else the highest) is
 *      dlopen()ed from the directory of ducksassy.so (RTLD_NOW|RTLD_LOCAL);
 *      if that fails, the next lower supported one is tried.
 *   4. Its ducksassy_backend_register(dll) (src/backend.c) registers the
 *      Rust .Call routines under ducksassy's own DllInfo; then one table
 *      with those and the C routines below is registered (a second
 *      R_registerRoutines() call replaces the first table, so the two are
 *      merged).
 * If no backend could be loaded, only the C routines are registered and
 * R/zzz.R stops loading with a classed error that says why.
 *
 * Test hook: with DUCKSASSY_FAKE_CPU_UNSUPPORTED=1 (or "true") at load time,
 * the CPU check reports every SIMD level unsupported (only backends that
 * need nothing beyond the architecture's baseline, scalar and neon, remain),
 * so the fallback and refusal paths can be tested in a subprocess.
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* dladdr() in glibc's dlfcn.h */
#endif
#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif
#if !defined(_WIN32)
#include <dlfcn.h>
#define DS_HAVE_DLOPEN 1
#endif

/* The backends built (tools/config -> configure -> src/Makevars), lowest
 * first, comma-separated: e.g. "scalar,avx2,avx512". */
#ifndef DUCKSASSY_BACKENDS
#define DUCKSASSY_BACKENDS "scalar"
#endif
/* What a "native" backend needs: "x86-64-v4", "x86-64-v3" or "none". */
#ifndef DUCKSASSY_NATIVE_REQUIRE
#define DUCKSASSY_NATIVE_REQUIRE "none"
#endif
#ifndef DUCKSASSY_SHLIB_EXT
#define DUCKSASSY_SHLIB_EXT ".so"
#endif

#define DS_MAX_BACKENDS 8
#define DS_NAME_LEN 16
#define DS_MSG_LEN 1024

static int n_backends = 0;
static char backend_name[DS_MAX_BACKENDS][DS_NAME_LEN];
static const char *backend_require[DS_MAX_BACKENDS];
static int backend_supported[DS_MAX_BACKENDS];
static int in_use = -1;        /* index of the loaded backend, -1: none */
static int forced = 0;         /* in_use was chosen by DUCKSASSY_BACKEND */
static int rust_loaded = 0;
static int fake_cpu = 0;
/* DUCKSASSY_BACKEND and what became of it: "unset", "ok", "unknown",
 * "not_compiled", "not_supported" */
static char requested[DS_NAME_LEN * 2] = "";
static const char *request_status = "unset";
static char load_error[DS_MSG_LEN] = "";

/* ---- CPU check (no SIMD instructions in here) -------------------------- */

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#define DS_X86 1
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define DS_HAS_LEVEL_NAMES 1
#endif

static int x86_has_v3(void) {
#ifdef DS_HAS_LEVEL_NAMES
  return __builtin_cpu_supports("x86-64-v3") != 0;
#else
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
         __builtin_cpu_supports("fma") && __builtin_cpu_supports("popcnt");
#endif
}

static int x86_has_v4(void) {
#ifdef DS_HAS_LEVEL_NAMES
  return __builtin_cpu_supports("x86-64-v4") != 0;
#else
  return x86_has_v3() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512cd");
#endif
}
#endif

/* Does this CPU meet `req` ("none", "x86-64-v3", "x86-64-v4")? */
static int cpu_meets(const char *req) {
  if (strcmp(req, "none") == 0) return 1;
  if (fake_cpu) return 0;
#ifdef DS_X86
  __builtin_cpu_init();
  if (strcmp(req, "x86-64-v4") == 0) return x86_has_v4();
  if (strcmp(req, "x86-64-v3") == 0) return x86_has_v3();
#endif
  return 0; /* a requirement this build cannot check: refuse */
}

static const char *require_of(const char *name) {
  if (strcmp(name, "avx512") == 0) return "x86-64-v4";
  if (strcmp(name, "avx2") == 0) return "x86-64-v3";
  if (strcmp(name, "native") == 0) return DUCKSASSY_NATIVE_REQUIRE;
  return "none"; /* scalar; neon is part of aarch64's base ISA */
}

static int env_true(const char *name) {
  const char *v = getenv(name);
  return v != NULL && (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 ||
                       strcmp(v, "TRUE") == 0);
}

static void parse_backends(void) {
  const char *p = DUCKSASSY_BACKENDS;
  n_backends = 0;
  while (*p != '\0' && n_backends < DS_MAX_BACKENDS) {
    while (*p == ',') p++;
    size_t len = strcspn(p, ",");
    if (len == 0) break;
    if (len >= DS_NAME_LEN) len = DS_NAME_LEN - 1;
    memcpy(backend_name[n_backends], p, len);
    backend_name[n_backends][len] = '\0';
    backend_require[n_backends] = require_of(backend_name[n_backends]);
    backend_supported[n_backends] = cpu_meets(backend_require[n_backends]);
    n_backends++;
    p += strcspn(p, ",");
  }
}

static int backend_index(const char *name) {
  for (int i = 0; i < n_backends; i++)
    if (strcmp(backend_name[i], name) == 0) return i;
  return -1;
}

static int known_backend(const char *name) {
  static const char *known[] = {"scalar", "avx2", "avx512", "neon", "native",
                                NULL};
  for (int i = 0; known[i] != NULL; i++)
    if (strcmp(known[i], name) == 0) return 1;
  return 0;
}

/* CPU model, for error messages and sassy_backend_info(); NA if unknown. */
static SEXP cpu_model(void) {
#if defined(__APPLE__)
  char buf[256];
  size_t len = sizeof(buf);
  if (sysctlbyname("machdep.cpu.brand_string", buf, &len, NULL, 0) == 0 &&
      len > 0) {
    buf[sizeof(buf) - 1] = '\0';
    return Rf_mkString(buf);
  }
  return Rf_ScalarString(NA_STRING);
#else
  static const char *keys[] = {"model name", "Model", "Hardware", "cpu model",
                               "cpu", NULL};
  char found[256] = "";
  int found_rank = 1000;
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return Rf_ScalarString(NA_STRING);
  char line[512];
  while (fgets(line, sizeof(line), f) != NULL) {
    char *colon = strchr(line, ':');
    if (colon == NULL) continue;
    size_t klen = (size_t)(colon - line);
    while (klen > 0 && (line[klen - 1] == ' ' || line[klen - 1] == '\t')) klen--;
    for (int r = 0; keys[r] != NULL && r < found_rank; r++) {
      if (strlen(keys[r]) == klen && strncmp(line, keys[r], klen) == 0) {
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t') v++;
        size_t vlen = strcspn(v, "\r\n");
        if (vlen == 0) break;
        if (vlen >= sizeof(found)) vlen = sizeof(found) - 1;
        memcpy(found, v, vlen);
        found[vlen] = '\0';
        found_rank = r;
        break;
      }
    }
    if (found_rank == 0) break;
  }
  fclose(f);
  if (found[0] == '\0') return Rf_ScalarString(NA_STRING);
  return Rf_mkString(found);
#endif
}

/* ---- loading a backend ------------------------------------------------ */

typedef void (*register_fn)(DllInfo *);
typedef SEXP (*metadata_fn)(void);
typedef int (*abi_fn)(void);
#define DUCKSASSY_BACKEND_ABI 1

static register_fn backend_register = NULL;
static void *backend_handle = NULL; /* dlopen() handle of the backend in use */
static metadata_fn backend_metadata = NULL;

static void add_load_error(const char *fmt, const char *a, const char *b) {
  size_t used = strlen(load_error);
  if (used + 2 >= sizeof(load_error)) return;
  if (used > 0) {
    strcat(load_error, "; ");
    used += 2;
  }
  snprintf(load_error + used, sizeof(load_error) - used, fmt, a, b);
}

/* dlopen()s backend i from the directory of ducksassy.so. Returns 1 if it
 * loaded and has the expected entry points. */
/* Address of a function of this file, for dladdr() to name our own file
 * (DllInfo's path is not part of R's API). */
static void anchor(void) {}

/* dlsym() returns an object pointer; ISO C has no cast from it to a
 * function pointer, POSIX guarantees the representation: copy the bytes. */
#define DS_DLSYM(var, h, name)                 \
  do {                                         \
    void *sym_ = dlsym((h), (name));           \
    memcpy(&(var), &sym_, sizeof(var));        \
  } while (0)

static int open_backend(int i) {
#ifdef DS_HAVE_DLOPEN
  Dl_info info;
  void (*self_fn)(void) = anchor;
  void *self_addr;
  memcpy(&self_addr, &self_fn, sizeof(self_addr));
  if (dladdr(self_addr, &info) == 0 || info.dli_fname == NULL) {
    add_load_error("%s: %s", backend_name[i],
                   "cannot tell where ducksassy's own library is (dladdr)");
    return 0;
  }
  const char *self = info.dli_fname;
  const char *slash = strrchr(self, '/');
  size_t dirlen = slash == NULL ? 0 : (size_t)(slash - self);
  size_t need = dirlen + strlen("/ducksassy_") + strlen(backend_name[i]) +
                strlen(DUCKSASSY_SHLIB_EXT) + 1;
  char *path = (char *)malloc(need + 2);
  if (path == NULL) return 0;
  if (slash == NULL)
    snprintf(path, need + 2, "./ducksassy_%s%s", backend_name[i],
             DUCKSASSY_SHLIB_EXT);
  else
    snprintf(path, need + 2, "%.*s/ducksassy_%s%s", (int)dirlen, self,
             backend_name[i], DUCKSASSY_SHLIB_EXT);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    add_load_error("%s: %s", backend_name[i], e == NULL ? "dlopen failed" : e);
    free(path);
    return 0;
  }
  abi_fn abi = NULL;
  register_fn reg = NULL;
  metadata_fn meta = NULL;
  DS_DLSYM(abi, h, "ducksassy_backend_abi");
  DS_DLSYM(reg, h, "ducksassy_backend_register");
  DS_DLSYM(meta, h, "ducksassy_backend_metadata");
  if (abi == NULL || reg == NULL || meta == NULL ||
      abi() != DUCKSASSY_BACKEND_ABI) {
    add_load_error("%s: %s is not a ducksassy backend of this version",
                   backend_name[i], path);
    dlclose(h);
    free(path);
    return 0;
  }
  free(path);
  backend_handle = h;
  /* the handle stays open for the life of the process: R never unloads the
   * Rust code (its thread pools may still be alive) */
  backend_register = reg;
  backend_metadata = meta;
  return 1;
#else
  add_load_error("%s: %s", backend_name[i],
                 "this platform has no dlopen(); ducksassy cannot load it");
  return 0;
#endif
}

/* Picks and opens a backend; sets in_use, forced, request_status. */
static void choose_backend(void) {
  const char *env = getenv("DUCKSASSY_BACKEND");
  int want = -1;
  if (env != NULL && env[0] != '\0' && strcmp(env, "auto") != 0) {
    snprintf(requested, sizeof(requested), "%s", env);
    if (!known_backend(env)) {
      request_status = "unknown";
      return; /* R/zzz.R stops: a typo must not pass silently */
    }
    want = backend_index(env);
    if (want < 0)
      request_status = "not_compiled";
    else if (!backend_supported[want]) {
      request_status = "not_supported";
      want = -1;
    } else
      request_status = "ok";
  }
  if (want >= 0 && open_backend(want)) {
    in_use = want;
    forced = 1;
    return;
  }
  for (int i = n_backends - 1; i >= 0; i--) {
    if (i == want || !backend_supported[i]) continue;
    if (open_backend(i)) {
      in_use = i;
      return;
    }
  }
}

/* ---- .Call routines ---------------------------------------------------- */

/* list(backends, requires, supported, in_use, forced, requested,
 *      request_status, load_error, cpu, fake_cpu) */
SEXP ducksassy_backend_info_c(void) {
  const char *names[] = {"backends", "requires", "supported", "in_use",
                         "forced", "requested", "request_status",
                         "load_error", "cpu", "fake_cpu", ""};
  SEXP out = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP b = PROTECT(Rf_allocVector(STRSXP, n_backends));
  SEXP r = PROTECT(Rf_allocVector(STRSXP, n_backends));
  SEXP s = PROTECT(Rf_allocVector(LGLSXP, n_backends));
  for (int i = 0; i < n_backends; i++) {
    SET_STRING_ELT(b, i, Rf_mkChar(backend_name[i]));
    SET_STRING_ELT(r, i, Rf_mkChar(backend_require[i]));
    LOGICAL(s)[i] = backend_supported[i];
  }
  SET_VECTOR_ELT(out, 0, b);
  SET_VECTOR_ELT(out, 1, r);
  SET_VECTOR_ELT(out, 2, s);
  SET_VECTOR_ELT(out, 3, rust_loaded && in_use >= 0
                             ? Rf_mkString(backend_name[in_use])
                             : Rf_ScalarString(NA_STRING));
  SET_VECTOR_ELT(out, 4, Rf_ScalarLogical(forced));
  SET_VECTOR_ELT(out, 5, Rf_mkString(requested));
  SET_VECTOR_ELT(out, 6, Rf_mkString(request_status));
  SET_VECTOR_ELT(out, 7, load_error[0] == '\0' ? Rf_ScalarString(NA_STRING)
                                               : Rf_mkString(load_error));
  SET_VECTOR_ELT(out, 8, cpu_model());
  SET_VECTOR_ELT(out, 9, Rf_ScalarLogical(fake_cpu));
  UNPROTECT(4);
  return out;
}

SEXP ducksassy_rust_loaded_c(void) { return Rf_ScalarLogical(rust_loaded); }

/* For the DuckDB extension (src/duckdb/extension.c), which finds this
 * library with dlopen(RTLD_NOLOAD): the dlopen() handle of the backend in
 * use, so that the SQL functions run the same backend as R; NULL when none
 * is loaded. Not a .Call routine. */
void *ducksassy_backend_handle(void) {
  return rust_loaded ? backend_handle : NULL;
}

/* ---- registration ------------------------------------------------------ */

#define N_C_ROUTINES 2
static const R_CallMethodDef c_routines[] = {
    {"ducksassy_backend_info_c", (DL_FUNC)&ducksassy_backend_info_c, 0},
    {"ducksassy_rust_loaded_c", (DL_FUNC)&ducksassy_rust_loaded_c, 0},
    {NULL, NULL, 0}};

static SEXP list_elt(SEXP list, const char *name) {
  if (TYPEOF(list) != VECSXP) return R_NilValue;
  SEXP names = Rf_getAttrib(list, R_NamesSymbol);
  if (TYPEOF(names) != STRSXP) return R_NilValue;
  for (R_xlen_t i = 0; i < XLENGTH(list); i++) {
    if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0)
      return VECTOR_ELT(list, i);
  }
  return R_NilValue;
}

/* Adds the extendr functions in `funcs` (a list of extendr metadata Func
 * records) to `tab` from position `*n`. Returns 0 if one is not found. */
static int add_rust_funcs(SEXP funcs, R_CallMethodDef *tab, int *n, int cap) {
  if (TYPEOF(funcs) != VECSXP) return funcs == R_NilValue;
  for (R_xlen_t i = 0; i < XLENGTH(funcs); i++) {
    SEXP fn = VECTOR_ELT(funcs, i);
    SEXP c_name = list_elt(fn, "c_name");
    if (TYPEOF(c_name) != STRSXP || XLENGTH(c_name) != 1 || *n >= cap)
      return 0;
    const char *name = CHAR(STRING_ELT(c_name, 0));
    /* the routine extendr has just registered under that name */
    DL_FUNC fun = R_FindSymbol(name, "ducksassy", NULL);
    if (fun == NULL) return 0;
    tab[*n].name = name;
    tab[*n].fun = fun;
    tab[*n].numArgs = (int)Rf_xlength(list_elt(fn, "args"));
    (*n)++;
  }
  return 1;
}

/* Registers the C routines and the Rust entry points of the opened backend
 * in one table. Returns 1 on success. */
static int register_all(DllInfo *dll) {
  backend_register(dll);
  SEXP meta = PROTECT(backend_metadata());
  SEXP funcs = list_elt(meta, "functions");
  SEXP impls = list_elt(meta, "impls");
  int cap = N_C_ROUTINES + (int)Rf_xlength(funcs) + 1;
  if (TYPEOF(impls) == VECSXP) {
    for (R_xlen_t i = 0; i < XLENGTH(impls); i++)
      cap += (int)Rf_xlength(list_elt(VECTOR_ELT(impls, i), "methods"));
  }
  R_CallMethodDef *tab = (R_CallMethodDef *)calloc((size_t)cap, sizeof(*tab));
  if (tab == NULL) {
    UNPROTECT(1);
    return 0;
  }
  int n = 0;
  for (; n < N_C_ROUTINES; n++) tab[n] = c_routines[n];
  int ok = add_rust_funcs(funcs, tab, &n, cap - 1);
  if (ok && TYPEOF(impls) == VECSXP) {
    for (R_xlen_t i = 0; ok && i < XLENGTH(impls); i++)
      ok = add_rust_funcs(list_elt(VECTOR_ELT(impls, i), "methods"), tab, &n,
                          cap - 1);
  }
  if (ok) {
    tab[n].name = NULL;
    tab[n].fun = NULL;
    tab[n].numArgs = 0;
    /* R copies the names and pointers, so `tab` can go afterwards */
    R_registerRoutines(dll, NULL, tab, NULL, NULL);
  }
  free(tab);
  UNPROTECT(1);
  return ok;
}

void R_init_ducksassy(DllInfo *dll) {
  fake_cpu = env_true("DUCKSASSY_FAKE_CPU_UNSUPPORTED");
  parse_backends();
  choose_backend();
  rust_loaded = in_use >= 0 ? register_all(dll) : 0;
  if (in_use >= 0 && !rust_loaded)
    add_load_error("%s: %s", backend_name[in_use],
                   "its routines could not be registered");
  if (!rust_loaded) {
    /* only the C routines: no Rust code can be reached from R */
    R_registerRoutines(dll, NULL, c_routines, NULL, NULL);
  }
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, FALSE);
}
