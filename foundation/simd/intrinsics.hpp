// <immintrin.h>, with GCC 12's false uninitialized warnings turned off for
// its own lines: its AVX-512 reductions and extracts start from an
// intentionally undefined register (`__Y`), which GCC 12 reports at every
// inlined use (GCC bug 105593, fixed in GCC 13). The pragmas cover the
// header's lines only, so a real warning in our code still shows; clang
// (which has no -Wmaybe-uninitialized) includes the header as it is.
// Include this, not <immintrin.h>.
#pragma once
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
