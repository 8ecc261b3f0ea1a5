/*
 * extension.c: the DuckDB extension ducksassy.duckdb_extension, a thin C
 * shim over DuckDB's stable C extension API (v1.2.0, vendored headers
 * duckdb.h and duckdb_extension.h, MIT, see LICENSE.note here).
 *
 * The search itself is not in this file: it is the Rust crate src/rust/sql
 * (C ABI), linked into every SIMD backend library ducksassy_<backend>.so.
 * At LOAD this shim finds the backend the R session already chose for this
 * CPU (src/entrypoint.c picked it when R loaded the package), so the SQL
 * functions follow the package's SIMD policy with no build of their own,
 * and this file is compiled with R's plain flags (no SIMD):
 *   1. dladdr() on a function of this file gives its own path, in the
 *      package's libs/ directory, next to the dispatcher ducksassy.so;
 *   2. dlopen(ducksassy.so, RTLD_NOLOAD) finds the dispatcher R has loaded
 *      (it fails when the R package is not loaded: then LOAD fails with a
 *      message that says so);
 *   3. its ducksassy_backend_handle() gives the backend's dlopen handle, and
 *      the backend's ducksassy_backend_sql_api() (src/backend.c) the table of
 *      Rust functions (struct ds_api, mirrored from src/rust/sql/src/lib.rs).
 *
 * Per DuckDB data chunk (up to 2048 rows), the rows' arguments are passed
 * to Rust as borrowed pointers into DuckDB's vectors (no copy of a string),
 * one call; the results are copied into DuckDB's result vector. A Rust
 * error is a message here, given to duckdb_scalar_function_set_error: the
 * query fails with it, the connection stays usable.
 */
#if !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* dladdr() in glibc's dlfcn.h */
#endif
#include "duckdb_extension.h"
#if !defined(_WIN32)
#include <dlfcn.h>
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DUCKDB_EXTENSION_EXTERN

#ifndef DUCKSASSY_SHLIB_EXT
#define DUCKSASSY_SHLIB_EXT ".so"
#endif

/* ---- the Rust side's C ABI (src/rust/sql/src/lib.rs; same layout) ------ */

#define DS_SQL_ABI 2
enum { FUN_COUNT = 0, FUN_CONTAINS = 1, FUN_HITS = 2, FUN_CRISPR_HITS = 3, FUN_ASSIGN = 4 };
#define DS_UNSET INT64_MIN /* margin, ends elements: not given */
#define DS_NO_COST INT32_MIN /* other_cost: none */
enum { STATUS_ASSIGNED = 0, STATUS_AMBIGUOUS = 1, STATUS_UNASSIGNED = 2, STATUS_NULL = 3 };
#define FUN_PANEL 0x100 /* or-ed in for a VARCHAR[] pattern argument */

typedef struct {
  const char *ptr; /* NULL: SQL NULL or not given */
  size_t len;
} ds_str;

typedef struct {
  int32_t valid;
  ds_str text;
  const ds_str *patterns;
  size_t n_patterns;
  int64_t k;
  ds_str alphabet;
  int32_t rc;
  int32_t all_endpoints;
  double overhang;
  double max_n_frac;
  int64_t pam_length;
  int32_t allow_pam_edits;
  const int64_t *ends; /* NULL: not given */
  size_t n_ends;
  int64_t margin; /* DS_UNSET: not given */
} ds_row;

typedef struct {
  const uint8_t *row_null;
  const uint64_t *off;
  const int64_t *values;
  size_t n_hits;
  const int32_t *pattern, *start, *end, *pattern_start, *pattern_end, *cost;
  const uint8_t *minus;
  const uint64_t *cigar_off;
  const uint8_t *cigar;
  const int32_t *other_cost; /* FUN_ASSIGN: one per row */
  const uint8_t *status;
} ds_chunk_out;

typedef struct {
  uint32_t abi;
  int (*run)(int32_t fun, const ds_row *rows, size_t n, ds_chunk_out *out,
             char *err, size_t err_len);
  const char *(*simd)(void);
} ds_api;

static const ds_api *api = NULL;

/* ---- finding the backend R loaded --------------------------------------- */

/* dlsym() returns an object pointer; copy it into a function pointer (POSIX
 * guarantees the representation; ISO C has no such cast). */
#if !defined(_WIN32)
#define DS_DLSYM(var, h, name)          \
  do {                                  \
    void *sym_ = dlsym((h), (name));    \
    memcpy(&(var), &sym_, sizeof(var)); \
  } while (0)

static void anchor(void) {}

/* Sets `api`; on failure writes why into msg and returns 0. */
static int find_api(char *msg, size_t len) {
  Dl_info info;
  void (*self_fn)(void) = anchor;
  void *self_addr;
  memcpy(&self_addr, &self_fn, sizeof(self_addr));
  if (dladdr(self_addr, &info) == 0 || info.dli_fname == NULL) {
    snprintf(msg, len, "ducksassy: cannot tell where this extension file is (dladdr)");
    return 0;
  }
  const char *self = info.dli_fname;
  const char *slash = strrchr(self, '/');
  size_t dirlen = slash == NULL ? 1 : (size_t)(slash - self);
  size_t need = dirlen + sizeof("/ducksassy" DUCKSASSY_SHLIB_EXT);
  char *path = (char *)malloc(need);
  if (path == NULL) return 0;
  snprintf(path, need, "%.*s/ducksassy" DUCKSASSY_SHLIB_EXT, (int)dirlen,
           slash == NULL ? "." : self);
  void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (h == NULL) {
    snprintf(msg, len,
             "the ducksassy SQL functions run in R's ducksassy package, which is "
             "not loaded in this process (%s): use them from R, with "
             "ducksassy::sassy_register(con) or ducksassy::sassy_duckdb()",
             path);
    free(path);
    return 0;
  }
  free(path);
  void *(*get_handle)(void) = NULL;
  DS_DLSYM(get_handle, h, "ducksassy_backend_handle");
  void *backend = get_handle == NULL ? NULL : get_handle();
  if (backend == NULL) {
    snprintf(msg, len,
             "ducksassy: no search backend is loaded in R (see "
             "ducksassy::sassy_backend_info()), or the package is of another "
             "version than this extension file: reinstall ducksassy");
    return 0;
  }
  const ds_api *(*get_api)(void) = NULL;
  DS_DLSYM(get_api, backend, "ducksassy_backend_sql_api");
  const ds_api *a = get_api == NULL ? NULL : get_api();
  if (a == NULL || a->abi != DS_SQL_ABI) {
    snprintf(msg, len,
             "ducksassy: the loaded backend library does not match this "
             "extension file: reinstall ducksassy");
    return 0;
  }
  api = a;
  return 1;
}
#else
/* The package builds no Windows backend loader yet (entrypoint.c needs
 * dlopen() too). */
static int find_api(char *msg, size_t len) {
  snprintf(msg, len, "the ducksassy SQL functions are not available on Windows yet");
  return 0;
}
#endif

/* ---- the functions ---------------------------------------------------------- */

/* What the argument at each position is, per SQL function. */
enum role {
  R_TEXT, R_PATTERN, R_K, R_ALPHABET, R_RC, R_ALL_ENDPOINTS, R_OVERHANG,
  R_MAX_N_FRAC, R_PAM_LENGTH, R_ALLOW_PAM_EDITS, R_ENDS, R_MARGIN
};

/* sassy_count / sassy_contains / sassy_hits: the R functions' order */
static const enum role search_roles[] = {R_TEXT,      R_PATTERN,       R_K,
                                         R_ALPHABET,  R_RC,            R_ALL_ENDPOINTS,
                                         R_OVERHANG,  R_MAX_N_FRAC};
/* sassy_crispr_hits(text, guide, k, pam_length, allow_pam_edits, max_n_frac, rc) */
static const enum role crispr_roles[] = {R_TEXT,          R_PATTERN,    R_K,
                                         R_PAM_LENGTH,    R_ALLOW_PAM_EDITS,
                                         R_MAX_N_FRAC,    R_RC};
/* sassy_assign: the search arguments, then ends and margin (R's order) */
static const enum role assign_roles[] = {R_TEXT,      R_PATTERN,       R_K,
                                         R_ALPHABET,  R_RC,            R_ALL_ENDPOINTS,
                                         R_OVERHANG,  R_MAX_N_FRAC,    R_ENDS,
                                         R_MARGIN};

typedef struct {
  int32_t fun;
  int panel; /* the pattern argument is a VARCHAR[] */
  const enum role *roles;
} fn_info;

static duckdb_type role_type(enum role r) {
  switch (r) {
  case R_K:
  case R_PAM_LENGTH:
  case R_MARGIN:
  case R_ENDS: /* a list of them: see add_overloads */
    return DUCKDB_TYPE_BIGINT;
  case R_RC:
  case R_ALL_ENDPOINTS:
  case R_ALLOW_PAM_EDITS:
    return DUCKDB_TYPE_BOOLEAN;
  case R_OVERHANG:
  case R_MAX_N_FRAC:
    return DUCKDB_TYPE_DOUBLE;
  default:
    return DUCKDB_TYPE_VARCHAR;
  }
}

static int row_valid(uint64_t *validity, idx_t row) {
  return validity == NULL || duckdb_validity_row_is_valid(validity, row);
}

static ds_str str_at(duckdb_string_t *data, idx_t i) {
  ds_str s;
  /* the element's address, not a copy: short strings live inside it */
  s.ptr = duckdb_string_t_data(&data[i]);
  s.len = duckdb_string_t_length(data[i]);
  return s;
}

/* Result vector helpers. */
static void set_null(duckdb_vector v, idx_t row) {
  duckdb_vector_ensure_validity_writable(v);
  duckdb_validity_set_row_invalid(duckdb_vector_get_validity(v), row);
}

static void write_values(const fn_info *fi, duckdb_vector output, idx_t n,
                         const ds_chunk_out *o) {
  if (!fi->panel) {
    if (fi->fun == FUN_COUNT) {
      int64_t *d = (int64_t *)duckdb_vector_get_data(output);
      for (idx_t r = 0; r < n; r++) {
        if (o->row_null[r]) set_null(output, r);
        else d[r] = o->values[o->off[r]];
      }
    } else {
      bool *d = (bool *)duckdb_vector_get_data(output);
      for (idx_t r = 0; r < n; r++) {
        if (o->row_null[r]) set_null(output, r);
        else d[r] = o->values[o->off[r]] != 0;
      }
    }
    return;
  }
  /* a list per row: one value per pattern */
  idx_t total = (idx_t)o->off[n];
  duckdb_list_vector_reserve(output, total);
  duckdb_list_vector_set_size(output, total);
  duckdb_list_entry *e = (duckdb_list_entry *)duckdb_vector_get_data(output);
  duckdb_vector child = duckdb_list_vector_get_child(output);
  for (idx_t r = 0; r < n; r++) {
    e[r].offset = o->off[r];
    e[r].length = o->off[r + 1] - o->off[r];
    if (o->row_null[r]) set_null(output, r);
  }
  if (fi->fun == FUN_COUNT) {
    int64_t *d = (int64_t *)duckdb_vector_get_data(child);
    if (total > 0) memcpy(d, o->values, total * sizeof(int64_t));
  } else {
    bool *d = (bool *)duckdb_vector_get_data(child);
    for (idx_t j = 0; j < total; j++) d[j] = o->values[j] != 0;
  }
}

/* LIST(STRUCT(pattern, start, end, pattern_start, pattern_end, cost,
 * strand, cigar)); the first field is `guide` for CRISPR hits, as in R */
#define N_HIT_FIELDS 8
static const char *hit_names[N_HIT_FIELDS] = {
    "pattern", "start", "end", "pattern_start", "pattern_end", "cost",
    "strand", "cigar"};
static const char *crispr_hit_names[N_HIT_FIELDS] = {
    "guide", "start", "end", "pattern_start", "pattern_end", "cost",
    "strand", "cigar"};

static void write_hits(duckdb_vector output, idx_t n, const ds_chunk_out *o) {
  idx_t total = (idx_t)o->n_hits;
  duckdb_list_vector_reserve(output, total);
  duckdb_list_vector_set_size(output, total);
  duckdb_list_entry *e = (duckdb_list_entry *)duckdb_vector_get_data(output);
  for (idx_t r = 0; r < n; r++) {
    e[r].offset = o->off[r];
    e[r].length = o->off[r + 1] - o->off[r];
    if (o->row_null[r]) set_null(output, r);
  }
  duckdb_vector child = duckdb_list_vector_get_child(output);
  const int32_t *ints[6] = {o->pattern,       o->start,       o->end,
                            o->pattern_start, o->pattern_end, o->cost};
  for (int f = 0; f < 6; f++) {
    int32_t *d = (int32_t *)duckdb_vector_get_data(duckdb_struct_vector_get_child(child, f));
    if (total > 0) memcpy(d, ints[f], total * sizeof(int32_t));
  }
  duckdb_vector strand = duckdb_struct_vector_get_child(child, 6);
  duckdb_vector cigar = duckdb_struct_vector_get_child(child, 7);
  for (idx_t j = 0; j < total; j++) {
    duckdb_vector_assign_string_element_len(strand, j, o->minus[j] ? "-" : "+", 1);
    duckdb_vector_assign_string_element_len(
        cigar, j, (const char *)o->cigar + o->cigar_off[j],
        (idx_t)(o->cigar_off[j + 1] - o->cigar_off[j]));
  }
}

/* STRUCT(pattern, cost, start, end, strand, other_cost, status), as the
 * columns of R's sassy_assign() */
#define N_ASSIGN_FIELDS 7
static const char *assign_names[N_ASSIGN_FIELDS] = {
    "pattern", "cost", "start", "end", "strand", "other_cost", "status"};

static void write_assign(duckdb_vector output, idx_t n, const ds_chunk_out *o) {
  duckdb_vector f[N_ASSIGN_FIELDS];
  for (int i = 0; i < N_ASSIGN_FIELDS; i++) f[i] = duckdb_struct_vector_get_child(output, i);
  const int32_t *ints[4] = {o->pattern, o->cost, o->start, o->end};
  int32_t *d[4];
  for (int i = 0; i < 4; i++) d[i] = (int32_t *)duckdb_vector_get_data(f[i]);
  int32_t *other = (int32_t *)duckdb_vector_get_data(f[5]);
  static const char *status[3] = {"assigned", "ambiguous", "unassigned"};
  for (idx_t r = 0; r < n; r++) {
    uint8_t s = o->status[r];
    if (s == STATUS_NULL) {
      /* a NULL struct, and NULL fields (DuckDB reads them either way) */
      set_null(output, r);
      for (int i = 0; i < N_ASSIGN_FIELDS; i++) set_null(f[i], r);
      continue;
    }
    if (s == STATUS_UNASSIGNED) {
      for (int i = 0; i < 5; i++) set_null(f[i], r);
    } else {
      for (int i = 0; i < 4; i++) d[i][r] = ints[i][r];
      duckdb_vector_assign_string_element_len(f[4], r, o->minus[r] ? "-" : "+", 1);
    }
    if (o->other_cost[r] == DS_NO_COST) set_null(f[5], r);
    else other[r] = o->other_cost[r];
    const char *st = status[s < 3 ? s : 2];
    duckdb_vector_assign_string_element_len(f[6], r, st, (idx_t)strlen(st));
  }
}

static void search_fn(duckdb_function_info info, duckdb_data_chunk input,
                      duckdb_vector output) {
  const fn_info *fi = (const fn_info *)duckdb_scalar_function_get_extra_info(info);
  idx_t n = duckdb_data_chunk_get_size(input);
  idx_t ncol = duckdb_data_chunk_get_column_count(input);
  if (n == 0) return;
  ds_row *rows = (ds_row *)malloc(n * sizeof(ds_row));
  ds_str *panel = NULL;
  int64_t *ends = NULL;
  if (rows == NULL) {
    duckdb_scalar_function_set_error(info, "ducksassy: out of memory");
    return;
  }
  for (idx_t r = 0; r < n; r++) {
    ds_row *w = &rows[r];
    memset(w, 0, sizeof(*w));
    w->valid = 1;
    w->rc = -1;
    w->all_endpoints = -1;
    w->overhang = NAN;
    w->max_n_frac = NAN;
    w->pam_length = -1;
    w->allow_pam_edits = -1;
    w->margin = DS_UNSET;
  }
  for (idx_t c = 0; c < ncol; c++) {
    duckdb_vector v = duckdb_data_chunk_get_vector(input, c);
    uint64_t *val = duckdb_vector_get_validity(v);
    void *data = duckdb_vector_get_data(v);
    enum role role = fi->roles[c];
    if (role == R_PATTERN && fi->panel) {
      /* one array of the child's strings; each row points at its slice */
      duckdb_vector child = duckdb_list_vector_get_child(v);
      idx_t nchild = duckdb_list_vector_get_size(v);
      uint64_t *cval = duckdb_vector_get_validity(child);
      duckdb_string_t *cdata = (duckdb_string_t *)duckdb_vector_get_data(child);
      panel = (ds_str *)malloc((nchild > 0 ? nchild : 1) * sizeof(ds_str));
      if (panel == NULL) {
        free(rows);
        duckdb_scalar_function_set_error(info, "ducksassy: out of memory");
        return;
      }
      for (idx_t j = 0; j < nchild; j++) {
        if (row_valid(cval, j)) panel[j] = str_at(cdata, j);
        else {
          panel[j].ptr = NULL;
          panel[j].len = 0;
        }
      }
      duckdb_list_entry *e = (duckdb_list_entry *)data;
      for (idx_t r = 0; r < n; r++) {
        if (!row_valid(val, r)) {
          rows[r].valid = 0;
          continue;
        }
        rows[r].patterns = panel + e[r].offset;
        rows[r].n_patterns = (size_t)e[r].length;
      }
      continue;
    }
    if (role == R_ENDS) {
      /* a list of whole numbers per row (a NULL list: not given, as R's
       * default NULL); NULL elements are DS_UNSET, refused in Rust */
      duckdb_vector child = duckdb_list_vector_get_child(v);
      idx_t nchild = duckdb_list_vector_get_size(v);
      uint64_t *cval = duckdb_vector_get_validity(child);
      int64_t *cdata = (int64_t *)duckdb_vector_get_data(child);
      ends = (int64_t *)malloc((nchild > 0 ? nchild : 1) * sizeof(int64_t));
      if (ends == NULL) {
        free(panel);
        free(rows);
        duckdb_scalar_function_set_error(info, "ducksassy: out of memory");
        return;
      }
      for (idx_t j = 0; j < nchild; j++) ends[j] = row_valid(cval, j) ? cdata[j] : DS_UNSET;
      duckdb_list_entry *e = (duckdb_list_entry *)data;
      for (idx_t r = 0; r < n; r++) {
        if (!row_valid(val, r)) continue;
        rows[r].ends = ends + e[r].offset;
        rows[r].n_ends = (size_t)e[r].length;
      }
      continue;
    }
    /* overhang and max_n_frac are NULL by default in R too: there a SQL
     * NULL means "not set", like leaving them out (so that max_n_frac can be
     * given without an overhang); any other NULL makes the result NULL */
    int null_is_unset = (role == R_OVERHANG || role == R_MAX_N_FRAC) &&
                        fi->fun != FUN_CRISPR_HITS;
    for (idx_t r = 0; r < n; r++) {
      ds_row *w = &rows[r];
      if (!row_valid(val, r)) {
        if (!null_is_unset) w->valid = 0;
        continue;
      }
      switch (role) {
      case R_TEXT: w->text = str_at((duckdb_string_t *)data, r); break;
      case R_PATTERN: break; /* a single pattern: set below */
      case R_K: w->k = ((int64_t *)data)[r]; break;
      case R_ALPHABET: w->alphabet = str_at((duckdb_string_t *)data, r); break;
      case R_RC: w->rc = ((bool *)data)[r] ? 1 : 0; break;
      case R_ALL_ENDPOINTS: w->all_endpoints = ((bool *)data)[r] ? 1 : 0; break;
      case R_OVERHANG: w->overhang = ((double *)data)[r]; break;
      case R_MAX_N_FRAC: w->max_n_frac = ((double *)data)[r]; break;
      case R_PAM_LENGTH: w->pam_length = ((int64_t *)data)[r]; break;
      case R_ALLOW_PAM_EDITS: w->allow_pam_edits = ((bool *)data)[r] ? 1 : 0; break;
      case R_MARGIN: w->margin = ((int64_t *)data)[r]; break;
      case R_ENDS: break; /* above */
      }
    }
  }
  /* a single pattern per row: its string, kept in a parallel array */
  ds_str *single = NULL;
  if (!fi->panel) {
    single = (ds_str *)malloc(n * sizeof(ds_str));
    if (single == NULL) {
      free(ends);
      free(rows);
      duckdb_scalar_function_set_error(info, "ducksassy: out of memory");
      return;
    }
    duckdb_vector v = duckdb_data_chunk_get_vector(input, 1);
    duckdb_string_t *data = (duckdb_string_t *)duckdb_vector_get_data(v);
    for (idx_t r = 0; r < n; r++) {
      if (!rows[r].valid) continue;
      single[r] = str_at(data, r);
      rows[r].patterns = &single[r];
      rows[r].n_patterns = 1;
    }
  }
  /* a NULL text with valid other arguments: also NULL */
  for (idx_t r = 0; r < n; r++)
    if (rows[r].valid && rows[r].text.ptr == NULL) rows[r].valid = 0;

  ds_chunk_out o;
  char err[2048];
  err[0] = '\0';
  int failed = api->run(fi->fun | (fi->panel ? FUN_PANEL : 0), rows, (size_t)n,
                        &o, err, sizeof(err));
  if (failed) {
    duckdb_scalar_function_set_error(info, err[0] ? err : "ducksassy: the search failed");
  } else if (fi->fun == FUN_ASSIGN) {
    write_assign(output, n, &o);
  } else if (fi->fun == FUN_HITS || fi->fun == FUN_CRISPR_HITS) {
    write_hits(output, n, &o);
  } else {
    write_values(fi, output, n, &o);
  }
  free(single);
  free(ends);
  free(panel);
  free(rows);
}

static void backend_fn(duckdb_function_info info, duckdb_data_chunk input,
                       duckdb_vector output) {
  (void)info;
  idx_t n = duckdb_data_chunk_get_size(input);
  const char *s = api->simd();
  for (idx_t r = 0; r < n; r++)
    duckdb_vector_assign_string_element_len(output, r, s, (idx_t)strlen(s));
}

/* ---- registration ----------------------------------------------------------- */

static const fn_info infos[] = {
    {FUN_COUNT, 0, search_roles},  {FUN_CONTAINS, 0, search_roles},
    {FUN_HITS, 0, search_roles},   {FUN_COUNT, 1, search_roles},
    {FUN_CONTAINS, 1, search_roles}, {FUN_HITS, 1, search_roles},
    {FUN_CRISPR_HITS, 0, crispr_roles}, {FUN_CRISPR_HITS, 1, crispr_roles},
    {FUN_ASSIGN, 0, assign_roles},   {FUN_ASSIGN, 1, assign_roles}};

static duckdb_logical_type hits_type(const char **names) {
  duckdb_logical_type members[N_HIT_FIELDS];
  for (int f = 0; f < N_HIT_FIELDS; f++)
    members[f] = duckdb_create_logical_type(f < 6 ? DUCKDB_TYPE_INTEGER : DUCKDB_TYPE_VARCHAR);
  duckdb_logical_type st = duckdb_create_struct_type(members, names, N_HIT_FIELDS);
  duckdb_logical_type list = duckdb_create_list_type(st);
  for (int f = 0; f < N_HIT_FIELDS; f++) duckdb_destroy_logical_type(&members[f]);
  duckdb_destroy_logical_type(&st);
  return list;
}

static duckdb_logical_type assign_type(void) {
  duckdb_logical_type members[N_ASSIGN_FIELDS];
  for (int f = 0; f < N_ASSIGN_FIELDS; f++)
    members[f] = duckdb_create_logical_type(f == 4 || f == 6 ? DUCKDB_TYPE_VARCHAR
                                                             : DUCKDB_TYPE_INTEGER);
  duckdb_logical_type st = duckdb_create_struct_type(members, assign_names, N_ASSIGN_FIELDS);
  for (int f = 0; f < N_ASSIGN_FIELDS; f++) duckdb_destroy_logical_type(&members[f]);
  return st;
}

static duckdb_logical_type return_type(const fn_info *fi) {
  if (fi->fun == FUN_ASSIGN) return assign_type();
  if (fi->fun == FUN_HITS) return hits_type(hit_names);
  if (fi->fun == FUN_CRISPR_HITS) return hits_type(crispr_hit_names);
  duckdb_logical_type t = duckdb_create_logical_type(
      fi->fun == FUN_COUNT ? DUCKDB_TYPE_BIGINT : DUCKDB_TYPE_BOOLEAN);
  if (!fi->panel) return t;
  duckdb_logical_type l = duckdb_create_list_type(t);
  duckdb_destroy_logical_type(&t);
  return l;
}

/* Adds the overloads with 3 .. n_roles arguments of one function to `set`. */
static int add_overloads(duckdb_scalar_function_set set, const char *name,
                         const fn_info *fi, int n_roles) {
  for (int nargs = 3; nargs <= n_roles; nargs++) {
    duckdb_scalar_function f = duckdb_create_scalar_function();
    duckdb_scalar_function_set_name(f, name);
    for (int a = 0; a < nargs; a++) {
      duckdb_logical_type t = duckdb_create_logical_type(role_type(fi->roles[a]));
      if ((fi->roles[a] == R_PATTERN && fi->panel) || fi->roles[a] == R_ENDS) {
        duckdb_logical_type l = duckdb_create_list_type(t);
        duckdb_scalar_function_add_parameter(f, l);
        duckdb_destroy_logical_type(&l);
      } else {
        duckdb_scalar_function_add_parameter(f, t);
      }
      duckdb_destroy_logical_type(&t);
    }
    duckdb_logical_type rt = return_type(fi);
    duckdb_scalar_function_set_return_type(f, rt);
    duckdb_destroy_logical_type(&rt);
    duckdb_scalar_function_set_function(f, search_fn);
    /* NULLs are ours to handle (see search_fn), never short-cut by DuckDB */
    duckdb_scalar_function_set_special_handling(f);
    duckdb_scalar_function_set_extra_info(f, (void *)fi, NULL);
    duckdb_state st = duckdb_add_scalar_function_to_set(set, f);
    duckdb_destroy_scalar_function(&f);
    if (st == DuckDBError) return 0;
  }
  return 1;
}

static int register_search(duckdb_connection con, const char *name,
                           const fn_info *single, const fn_info *panel,
                           int n_roles) {
  duckdb_scalar_function_set set = duckdb_create_scalar_function_set(name);
  int ok = add_overloads(set, name, single, n_roles) &&
           (panel == NULL || add_overloads(set, name, panel, n_roles)) &&
           duckdb_register_scalar_function_set(con, set) == DuckDBSuccess;
  duckdb_destroy_scalar_function_set(&set);
  return ok;
}

DUCKDB_EXTENSION_ENTRYPOINT(duckdb_connection connection,
                            duckdb_extension_info info,
                            struct duckdb_extension_access *access) {
  char msg[1024];
  if (api == NULL && !find_api(msg, sizeof(msg))) {
    access->set_error(info, msg);
    return false;
  }
  int n_search = (int)(sizeof(search_roles) / sizeof(search_roles[0]));
  int n_crispr = (int)(sizeof(crispr_roles) / sizeof(crispr_roles[0]));
  int n_assign = (int)(sizeof(assign_roles) / sizeof(assign_roles[0]));
  int ok = register_search(connection, "sassy_count", &infos[0], &infos[3], n_search) &&
           register_search(connection, "sassy_contains", &infos[1], &infos[4], n_search) &&
           register_search(connection, "sassy_hits", &infos[2], &infos[5], n_search) &&
           register_search(connection, "sassy_crispr_hits", &infos[6], &infos[7], n_crispr) &&
           register_search(connection, "sassy_assign", &infos[8], &infos[9], n_assign);
  if (ok) {
    duckdb_scalar_function f = duckdb_create_scalar_function();
    duckdb_scalar_function_set_name(f, "sassy_backend");
    duckdb_logical_type t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
    duckdb_scalar_function_set_return_type(f, t);
    duckdb_destroy_logical_type(&t);
    duckdb_scalar_function_set_function(f, backend_fn);
    ok = duckdb_register_scalar_function(connection, f) == DuckDBSuccess;
    duckdb_destroy_scalar_function(&f);
  }
  if (!ok) {
    access->set_error(info, "ducksassy: could not register the SQL functions");
    return false;
  }
  return true;
}
