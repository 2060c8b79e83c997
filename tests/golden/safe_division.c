#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* exec_alu in C: see eqsat_uopc/backend/prelude.py. A fault helper returns the status code
   (node * 8 + reason) of an operation C leaves undefined, 0 when the operation is defined. */
static inline int32_t uopc_first(int32_t a, int32_t b) { return a ? a : b; }

static inline bool uopc_add_bool(bool a, bool b) { return a | b; }
static inline bool uopc_mul_bool(bool a, bool b) { return a & b; }
static inline bool uopc_max_bool(bool a, bool b) { return b > a ? b : a; }

static inline int32_t uopc_add_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t uopc_mul_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static inline int32_t uopc_max_i32(int32_t a, int32_t b) { return b > a ? b : a; }
static inline int32_t uopc_floordiv_i32(int32_t a, int32_t b) {
  if (b == 0 || (a == INT32_MIN && b == -1)) return 0; /* undefined: the lane is poisoned */
  int32_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int32_t uopc_floordiv_fault(int32_t a, int32_t b, int32_t node) {
  return b == 0 ? node * 8 + 1 : (a == INT32_MIN && b == -1) ? node * 8 + 2 : 0;
}
static inline int32_t uopc_floormod_i32(int32_t a, int32_t b) {
  if (b == 0 || b == -1) return 0; /* b == 0 is poisoned; a % -1 is 0 (C's INT32_MIN % -1 traps) */
  int32_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int32_t uopc_floormod_fault(int32_t b, int32_t node) { return b == 0 ? node * 8 + 3 : 0; }

static inline float uopc_add_f32(float a, float b) { return a + b; }
static inline float uopc_mul_f32(float a, float b) { return a * b; }
static inline float uopc_max_f32(float a, float b) { return b > a ? b : a; }
static inline float uopc_recip_f32(float v) { return 1.0f / v; }
static inline float uopc_sqrt_f32(float v) { return sqrtf(v); }
static inline float uopc_exp2_f32(float v) { return (float)pow(2.0, (double)v); }
static inline float uopc_log2_f32(float v) { return (float)log2((double)v); }
static inline float uopc_sin_f32(float v) { return (float)sin((double)v); }

static inline bool uopc_cast_bool_bool(bool v) { return v; }
static inline int32_t uopc_cast_bool_i32(bool v) { return (int32_t)v; }
static inline float uopc_cast_bool_f32(bool v) { return (float)v; }
static inline bool uopc_cast_i32_bool(int32_t v) { return v != 0; }
static inline int32_t uopc_cast_i32_i32(int32_t v) { return v; }
static inline float uopc_cast_i32_f32(int32_t v) { return (float)v; }
static inline bool uopc_cast_f32_bool(float v) { return v != 0.0f; }
static inline float uopc_cast_f32_f32(float v) { return v; }
static inline bool uopc_f32_fits_i32(float v) { /* false for NaN and +-inf too */
  return (double)v >= -2147483648.0 && (double)v < 2147483648.0;
}
static inline int32_t uopc_cast_f32_i32(float v) { return uopc_f32_fits_i32(v) ? (int32_t)v : 0; }
static inline int32_t uopc_cast_f32_i32_fault(float v, int32_t node) {
  return uopc_f32_fits_i32(v) ? 0 : node * 8 + 4;
}

static int32_t uopc_run_kernel(const int32_t *restrict p0, const int32_t *restrict p1, int32_t *restrict out, void *restrict work, int32_t *restrict detail) {
  (void)work; (void)detail; /* not every program needs them */
  /* %0 = param : slot=1 dtype=i32 */
  int32_t n0 = p1[0];
  /* %1 = cmpne %0, 0 */
  bool n1 = n0 != 0;
  /* %2 = param : slot=0 dtype=i32 */
  int32_t n2 = p0[0];
  /* %3 = floordiv %2, %0 */
  int32_t n3 = uopc_floordiv_i32(n2, n0);
  int32_t q3 = uopc_floordiv_fault(n2, n0, 3);
  /* %4 = where %1, %3, -1 */
  int32_t n4 = n1 ? n3 : -1;
  int32_t q4 = n1 ? q3 : 0;
  if (q4) return q4;
  out[0] = n4;
  return 0;
}

/* Runs the program on n input sets laid out one after another; status[4 * b] is the code
   of set b (0: defined), status[4 * b + 1 ..] the details of a bounds error. */
int32_t uopc_run(int64_t n, const void *const *inputs, void *out, void *work, int32_t *status) {
  int32_t failed = 0;
  for (int64_t b = 0; b < n; b++) {
    int32_t *st = status + 4 * b;
    st[0] = uopc_run_kernel((const int32_t *)inputs[0] + b * 1, (const int32_t *)inputs[1] + b * 1, (int32_t *)out + b * 1, work, st + 1);
    failed += st[0] != 0;
  }
  return failed;
}

/* Runs the program n times on input set 0, for timing; status[0] is the last run's code. */
int32_t uopc_run_repeat(int64_t n, const void *const *inputs, void *out, void *work, int32_t *status) {
  const int64_t b = 0;
  for (int64_t r = 0; r < n; r++) {
    __asm__ volatile("" ::: "memory"); /* inputs may have changed: no run is hoisted away */
    int32_t *st = status;
    st[0] = uopc_run_kernel((const int32_t *)inputs[0] + b * 1, (const int32_t *)inputs[1] + b * 1, (int32_t *)out + b * 1, work, st + 1);
  }
  return status[0] != 0;
}
