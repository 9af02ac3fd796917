#include "foundation/kernels/int8/int8_kernels.hpp"
#include "harness/cli/train_command.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>

#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/results/result_set.hpp"
#include "workloads/training/trainer/torch_numerics.hpp"
#include "workloads/training/trainer/mpi_collective.hpp"
#include "workloads/training/trainer/training_run.hpp"

namespace sdc {

namespace {

nlohmann::json with_numerics(nlohmann::json prov) {
  prov["numerics"] = train::torch_numerics();
  return prov;
}

int run_train_job(const train_options& o) {
  using json = nlohmann::json;
  const std::string started = now_iso8601();
  // A training suite names its configuration on its `config` axis: train with the first.
  std::string path = o.config_path;
  json raw = read_json_file(path);
  if (raw.is_object() && raw.value("schema", "") == "sdcbench.suite/1") {
    if (raw.value("workload", "") != "training")
      throw input_error(path, "workload", "a suite of the training workload, or a training configuration");
    const json axes = raw.value("axes", json::object());
    const json first = axes.contains("config") && axes["config"].is_array() && !axes["config"].empty() ? axes["config"][0]
                                                                                                        : json("training/episodes.json");
    if (!first.is_string()) throw input_error(path, "/axes/config/0", "the path of a training configuration");
    path = (std::filesystem::path(path).parent_path() / first.get<std::string>()).lexically_normal().string();
    raw = read_json_file(path);
  }
  const std::string base = std::filesystem::path(path).parent_path().string();
  const train::train_config c = train::parse_train_config(raw, path, base);
  torch::set_num_threads(1);

  const auto data = train::load_train_data(c);
  std::unique_ptr<train::collective> coll;
  bool lead = true;  // the process that prints and writes (rank 0 under MPI)
  if (c.mpi) {
    mpi::ensure_mpi();
    if (mpi::size() != c.dp.ranks)
      throw input_error(path, "ranks", fmt::format("{} (backend mpi runs one process per rank); mpirun started {}",
                                                            c.dp.ranks, mpi::size()));
    coll = std::make_unique<train::mpi_collective>(c.ordered);
    lead = mpi::rank() == 0;
  }
  std::string ckpt;
  train::replica start;
  if (c.mpi && !lead) mpi::barrier();  // rank 0 pretrains and caches, the others read the cache
  start = train::pretrained_start(c, &ckpt);
  if (c.mpi && lead) mpi::barrier();
  const double before = train::eval_loss(c.model, start.params, data.eval);
  train::dp_trainer t(c.model, c.optim, c.dp, &data.train, coll.get());
  t.start_from(start);
  json records = json::array();
  double first_mean = 0, last_mean = 0;
  for (int64_t s = 0; s < c.steps; ++s) {
    const train::step_record r = t.step(nullptr, {.grad_norms = true, .tensor_norms = c.tensor_norms, .consistency = c.consistency});
    double mean = 0;
    for (double l : r.loss) mean += l / double(r.loss.size());
    if (s == 0) first_mean = mean;
    last_mean = mean;
    json j = {{"step", r.step}, {"lr", r.lr}, {"loss", r.loss}, {"grad_norm", r.grad_norm}};
    if (c.tensor_norms) j["tensor_norms"] = r.tensor_norms;
    if (c.consistency) j["cos_mean"] = r.cos_mean, j["cos_to_rest"] = r.cos_to_rest;
    records.push_back(std::move(j));
    if (lead && !o.quiet && (s % std::max<int64_t>(1, c.steps / 10) == 0 || s + 1 == c.steps))
      std::cout << fmt::format("step {:>5}  lr {:.2e}  mean loss {:.4f}  ranks [{:.4f}]\n", r.step, r.lr, mean, fmt::join(r.loss, ", "));
  }
  const double after = train::eval_loss(c.model, t.replicas()[0].params, data.eval);
  if (!lead) return 0;
  std::string bytes;  // rank 0's final parameters, for comparing runs bit for bit
  for (const auto& p : t.replicas()[0].params.tensors)
    bytes.append(static_cast<const char*>(p.data_ptr()), size_t(p.numel()) * sizeof(float));
  json out = {{"schema", "sdcbench.train/1"},
              {"config", train::describe(c)},
              {"config_file", path},
              {"pretrain_checkpoint", ckpt},
              {"parameters", t.replicas()[0].params.names},
              {"parameter_count", t.replicas()[0].params.numel()},
              {"eval_response_loss", {{"start", before}, {"end", after}}},
              {"final_params_sha256", sha256_hex(bytes)},
              {"records", records},
              {"provenance", with_numerics(provenance(o.argv, 1, c.dp.seed, started, int8_gemm_kernel_name()))},
              {"complete", true}};
  std::cout << fmt::format("held-out response loss {:.4f} -> {:.4f}; training loss (mean of ranks) {:.4f} -> {:.4f}\n",
                           before, after, first_mean, last_mean);
  if (!o.out.empty()) {
    write_json_atomic(o.out, out);
    std::cout << "wrote " << o.out << "\n";
  }
  return 0;
}


}  // namespace

int run_train(const train_options& o) {
  try {
    return run_train_job(o);
  } catch (const std::exception& e) {
    if (!mpi::running()) throw;
    // Under mpirun: one message per failing rank, then the whole job ends (no rank left waiting).
    std::cerr << fmt::format("sdcbench: error (rank {}): {}\n", mpi::rank(), e.what());
    mpi::abort_job(2);
  }
}

}  // namespace sdc
