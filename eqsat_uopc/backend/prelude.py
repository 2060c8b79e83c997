"""The fixed C prelude of every generated program: one small inline function per op and dtype.

Each helper is exec_alu's definition written in C, so the generated code reads `uopc_add_i32(a, b)`
and the semantics live in one place:

- i32 ADD/MUL compute in uint32_t (wraparound without C's signed-overflow UB); the conversion back
  to int32_t is modulo 2^32 (implementation-defined in C, defined so by GCC and clang).
- FLOORDIV/FLOORMOD are floor division and modulo. Where exec_alu refuses (b == 0, INT_MIN // -1)
  the value helper returns 0, never traps, and the matching `_fault` helper returns the status
  code that poisons the lane. FLOORMOD(INT_MIN, -1) is 0, as in exec_alu (C's % would trap).
- f32 values are stored as float. +, *, 1/x and sqrt are IEEE single precision, which is exactly
  the f32 rounding of the double result. SIN, EXP2 and LOG2 are the f32 rounding of the libm
  double function, as exec_alu computes them (EXP2 as pow(2.0, x), the call Python's math.pow
  makes); the build passes -fno-builtin-* for them so the compiler cannot constant-fold them with
  a different (correctly rounded) result.
- MAX is `b > a ? b : a`: MAX(NaN, 1) is NaN, MAX(1, NaN) is 1, MAX(-0.0, 0.0) is -0.0.
- CAST f32 -> i32 truncates toward zero; a non-finite or out-of-range value is a fault.
"""

from __future__ import annotations

__all__ = ["PRELUDE"]

PRELUDE = r"""#include <math.h>
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
"""
