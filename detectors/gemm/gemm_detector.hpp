// The GEMM detector family: checks of C = A x B (001's ABFT policies, the
// NaN/Inf baseline). A detector implements encode (once per matrix pair) and
// verify; observe() adapts them to the episode protocol.
#pragma once
#include "protocol/detector.hpp"
#include "protocol/views/gemm_view.hpp"

namespace sdc {

class gemm_detector : public detector {
 public:
  using detector::encode;
  virtual bool needs_exact_row_errors() const { return false; }
  detector_needs needs() const override { return {.exact_row_errors = needs_exact_row_errors()}; }
  void reset(const episode_context& e) override;
  void encode(const step_view& v, size_t slot) override;
  verdict observe(const step_view& v) override;
  // Called once per trial on the clean inputs, before any fault: encoding that
  // a deployment does once for reused weights (checksums of B).
  virtual void encode(const gemm_data<float>& d) = 0;
  virtual void encode(const gemm_data<double>& d) = 0;
  // Called on the (possibly faulty) inputs and output.
  virtual verdict verify(const gemm_data<float>& d) = 0;
  virtual verdict verify(const gemm_data<double>& d) = 0;
  // Incremental verification: `baseline` sees the clean pair once; then
  // `verify_change` sees faulty data that differs from it only where `change`
  // says, and must return exactly what `verify` would. The defaults verify in full.
  virtual void baseline(const gemm_data<float>&) {}
  virtual void baseline(const gemm_data<double>&) {}
  virtual verdict verify_change(const gemm_data<float>& d, const gemm_change&) { return verify(d); }
  virtual verdict verify_change(const gemm_data<double>& d, const gemm_change&) { return verify(d); }
  // The protected GEMM (issue 34; foundation/kernels/gemm/gemm_check_sums.hpp):
  // C = d.A d.B on the fixed-order kernel in d.order, which computes the
  // check's sums as it goes, and the verdict from them, bit for bit what
  // verify() returns for d with that C (tests/test_protected_gemm.cpp). After
  // encode(). False, C untouched: the detector has no fused form here (a check
  // that reads C's values, an output format narrower than the accumulator, the
  // pairwise or OpenBLAS order).
  virtual bool protected_gemm(const gemm_data<float>&, float*, verdict*) { return false; }
  virtual bool protected_gemm(const gemm_data<double>&, double*, verdict*) { return false; }

 private:
  template <class T>
  verdict observe_t(const gemm_step<T>& s);
  uint64_t data_id_ = ~uint64_t(0), baseline_id_ = ~uint64_t(0);
};

// Implements both precisions from one template pair in Derived:
//   template <class T> void encode_t(const gemm_data<T>&);
//   template <class T> verdict verify_t(const gemm_data<T>&);
// and, if Derived verifies incrementally, baseline_t and verify_change_t.
template <class Derived>
class gemm_detector_t : public gemm_detector {
 public:
  void encode(const gemm_data<float>& d) override { self()->encode_t(d); }
  void encode(const gemm_data<double>& d) override { self()->encode_t(d); }
  verdict verify(const gemm_data<float>& d) override { return self()->verify_t(d); }
  verdict verify(const gemm_data<double>& d) override { return self()->verify_t(d); }
  void baseline(const gemm_data<float>& d) override { baseline_any(d); }
  void baseline(const gemm_data<double>& d) override { baseline_any(d); }
  verdict verify_change(const gemm_data<float>& d, const gemm_change& c) override { return change_any(d, c); }
  verdict verify_change(const gemm_data<double>& d, const gemm_change& c) override { return change_any(d, c); }
  bool protected_gemm(const gemm_data<float>& d, float* C, verdict* v) override { return protect_any(d, C, v); }
  bool protected_gemm(const gemm_data<double>& d, double* C, verdict* v) override { return protect_any(d, C, v); }

 private:
  Derived* self() { return static_cast<Derived*>(this); }
  template <class T>
  void baseline_any(const gemm_data<T>& d) {
    if constexpr (requires { self()->baseline_t(d); }) self()->baseline_t(d);
  }
  template <class T>
  bool protect_any(const gemm_data<T>& d, T* C, verdict* v) {
    if constexpr (requires { self()->protected_gemm_t(d, C, v); }) return self()->protected_gemm_t(d, C, v);
    else return false;
  }
  template <class T>
  verdict change_any(const gemm_data<T>& d, const gemm_change& c) {
    if constexpr (requires { self()->verify_change_t(d, c); }) return self()->verify_change_t(d, c);
    else return self()->verify_t(d);
  }
};

}  // namespace sdc
