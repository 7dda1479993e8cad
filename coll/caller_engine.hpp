// The host-driven engines (caller, native); see caller_engine.cpp.
#pragma once

#include "nbfft/coll/engine.hpp"

namespace nbfft::coll {

class HostEngine final : public Engine {
 public:
  explicit HostEngine(EngineKind kind) : kind_(kind) {}
  EngineKind kind() const override { return kind_; }
  void post(std::shared_ptr<RequestState> st) override;
  void progress() override;
  bool test(RequestState& st) override;
  void wait(RequestState& st) override;
  bool settle() override;

 private:
  void advance_all();
  void forget_done();
  EngineKind kind_;
  std::vector<std::shared_ptr<RequestState>> active_;
  bool in_progress_ = false;
};

}  // namespace nbfft::coll
