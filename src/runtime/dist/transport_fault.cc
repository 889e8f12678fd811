// Fault injection for the tests of multi-worker runs (see transport_fault.h).
#include "src/runtime/dist/transport_fault.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "pipesplit/runtime/kernels/manipulate.h"

namespace pipesplit::runtime {
namespace {

class FaultyTransport : public Transport {
 public:
  FaultyTransport(std::unique_ptr<Transport> inner, Fault fault)
      : inner_(std::move(inner)), fault_(fault) {}

  int num_workers() const override { return inner_->num_workers(); }

  void Send(int from, int to, const Tensor& tensor) override {
    if (from != fault_.worker || sends_++ != fault_.send_index) {
      inner_->Send(from, to, tensor);
      return;
    }
    AnnounceFault(fault_);
    switch (fault_.kind) {
      case Fault::Kind::kThrow:
        throw std::runtime_error("injected fault: worker " + std::to_string(from) +
                                 " throws at send " + std::to_string(fault_.send_index));
      case Fault::Kind::kKill:
        std::raise(SIGKILL);
        break;
      case Fault::Kind::kShape: {
        Shape shape = tensor.shape();
        shape.push_back(1);
        inner_->Send(from, to, Reshape(tensor, shape));
        return;
      }
      default:
        break;
    }
    inner_->Send(from, to, tensor);
  }

  Tensor Recv(int to, int from, std::chrono::milliseconds timeout) override {
    return inner_->Recv(to, from, timeout);
  }

  void Abort(int from, const std::string& reason) override { inner_->Abort(from, reason); }

 private:
  std::unique_ptr<Transport> inner_;
  Fault fault_;
  std::atomic<int64_t> sends_{0};  // sends of fault_.worker (threads share one transport)
};

const char* KindName(Fault::Kind kind) {
  switch (kind) {
    case Fault::Kind::kThrow:
      return "throw";
    case Fault::Kind::kKill:
      return "kill";
    case Fault::Kind::kShape:
      return "shape";
    case Fault::Kind::kGarble:
      return "garble";
    case Fault::Kind::kDuplicate:
      return "duplicate";
    case Fault::Kind::kDrop:
      return "drop";
  }
  return "?";
}

}  // namespace

void AnnounceFault(const Fault& fault) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  std::fprintf(stderr, "fault injected: %s on worker %d at %lld\n", KindName(fault.kind),
               fault.worker, static_cast<long long>(ms.count()));
  std::fflush(stderr);
}

Fault ParseFault(const std::string& spec) {
  auto bad = [&] {
    return RuntimeError(
        "PIPESPLIT_FAULT: expected <kind>@<worker>[:<n>] with kind throw, kill, "
        "shape, garble, duplicate or drop, got '" +
        spec + "'");
  };
  size_t at = spec.find('@');
  if (at == std::string::npos) throw bad();
  const std::string kind = spec.substr(0, at);
  static const std::vector<std::pair<std::string, Fault::Kind>> kKinds = {
      {"throw", Fault::Kind::kThrow},         {"kill", Fault::Kind::kKill},
      {"shape", Fault::Kind::kShape},         {"garble", Fault::Kind::kGarble},
      {"duplicate", Fault::Kind::kDuplicate}, {"drop", Fault::Kind::kDrop}};
  Fault fault;
  bool known = false;
  for (const auto& [name, k] : kKinds) {
    if (name == kind) fault.kind = k, known = true;
  }
  if (!known) throw bad();
  const std::string rest = spec.substr(at + 1);
  size_t colon = rest.find(':');
  auto number = [&](const std::string& text) {
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
      throw bad();
    }
    return std::stoi(text);
  };
  fault.worker = number(rest.substr(0, colon));
  if (colon != std::string::npos) fault.send_index = number(rest.substr(colon + 1));
  return fault;
}

std::optional<Fault> FaultFromEnvironment() {
  const char* spec = std::getenv("PIPESPLIT_FAULT");
  if (spec == nullptr || *spec == '\0') return std::nullopt;
  return ParseFault(spec);
}

std::unique_ptr<Transport> InjectFault(std::unique_ptr<Transport> transport, const Fault& fault,
                                       bool wire_capable) {
  if (fault.on_wire() && !wire_capable) {
    throw RuntimeError("PIPESPLIT_FAULT: garble, duplicate and drop need the MPI transport");
  }
  if (fault.kind == Fault::Kind::kKill && !wire_capable) {
    throw RuntimeError("PIPESPLIT_FAULT: kill needs the MPI transport");
  }
  return std::make_unique<FaultyTransport>(std::move(transport), fault);
}

}  // namespace pipesplit::runtime
