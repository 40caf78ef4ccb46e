#include "train/train_checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>

#include <fstream>
#include <mutex>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/json_parse.h"

namespace sift::train {
namespace {

namespace fs = std::filesystem;
constexpr const char* kFormat = "sift.train-checkpoint/1";

fs::path with_suffix(const fs::path& dir, const char* suffix) {
  fs::path p = dir;
  p += suffix;
  return p;
}

// DIR, or DIR.old when a kill fell between the two renames of a save.
fs::path readable_dir(const fs::path& dir) {
  if (fs::exists(dir / "trainer.json")) return dir;
  const fs::path old = with_suffix(dir, ".old");
  if (fs::exists(old / "trainer.json")) return old;
  return {};
}

}  // namespace

void save_train_checkpoint(const fs::path& dir, const TorchModel& model, torch::optim::Optimizer& optimizer,
                           const TrainProgress& progress, const EarlyStopping& early_stopping,
                           const nlohmann::json& fingerprint) {
  const fs::path tmp = with_suffix(dir, ".tmp"), old = with_suffix(dir, ".old");
  fs::remove_all(tmp);
  fs::create_directories(tmp);

  torch::serialize::OutputArchive archive;
  const auto& params = model.named_parameters();
  for (size_t i = 0; i < params.size(); ++i)
    archive.write("parameters/" + std::to_string(i), params[i].tensor.detach(), /*is_buffer=*/true);
  const std::vector<torch::Tensor>& best = early_stopping.best_weights();
  for (size_t i = 0; i < best.size(); ++i) archive.write("best/" + std::to_string(i), best[i], /*is_buffer=*/true);
  torch::serialize::OutputArchive optimizer_archive;
  optimizer.save(optimizer_archive);
  archive.write("optimizer", optimizer_archive);
  {
    auto generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    archive.write("rng", generator.get_state(), /*is_buffer=*/true);
  }
  archive.save_to((tmp / "state.pt").string());

  nlohmann::json trainer = {{"format", kFormat},
                            {"step", progress.step},
                            {"loss_ema", progress.loss_ema},
                            {"loss_ema_weight", progress.loss_ema_weight},
                            {"run", fingerprint}};
  if (early_stopping.options().enabled()) trainer["early_stopping"] = early_stopping.to_json();
  // The folder is written whole, flushed, then swapped in: a kill leaves DIR or DIR.old readable.
  sync_file(tmp / "state.pt");
  write_file_atomically(tmp / "trainer.json", trainer.dump(2) + "\n");
  fs::remove_all(old);
  if (fs::exists(dir)) fs::rename(dir, old);
  fs::rename(tmp, dir);
  sync_directory(dir.parent_path());
  fs::remove_all(old);
}

TrainProgress load_train_checkpoint(const fs::path& requested, TorchModel& model, torch::optim::Optimizer& optimizer,
                                    EarlyStopping& early_stopping, const nlohmann::json& fingerprint) {
  const fs::path dir = readable_dir(requested);
  if (dir.empty()) fail("{}: no training checkpoint to resume from (trainer.json is missing)", requested.string());
  std::ifstream in(dir / "trainer.json");
  if (!in) fail("{}: cannot open", (dir / "trainer.json").string());
  const nlohmann::json trainer = parse_json(in, (dir / "trainer.json").string());
  const std::string where = (dir / "trainer.json").string();
  const auto field = [&](const char* key, bool (nlohmann::json::*is)() const noexcept) -> const nlohmann::json& {
    const auto it = trainer.find(key);
    if (it == trainer.end() || !((*it).*is)()) fail("{}: field \"{}\" is missing or of the wrong type", where, key);
    return *it;
  };
  if (!trainer.is_object() || field("format", &nlohmann::json::is_string) != kFormat)
    fail("{}: not a {} file", where, kFormat);
  const nlohmann::json& saved = field("run", &nlohmann::json::is_object);
  for (const auto& [key, value] : fingerprint.items()) {
    if (!saved.contains(key) || saved[key] != value)
      fail("{}: cannot resume: the checkpoint was made with {} = {}, this run has {}", dir.string(), key,
           saved.contains(key) ? saved[key].dump() : "nothing", value.dump());
  }
  for (const auto& [key, value] : saved.items())
    if (!fingerprint.contains(key))
      fail("{}: cannot resume: the checkpoint was made with {} = {}, this run has nothing", dir.string(), key,
           value.dump());

  // libtorch's errors carry a C++ backtrace: one line naming the file instead.
  const fs::path state = dir / "state.pt";
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(state.string());
    std::vector<torch::Tensor> values;
    for (size_t i = 0; i < model.named_parameters().size(); ++i) {
      torch::Tensor t;
      archive.read("parameters/" + std::to_string(i), t, /*is_buffer=*/true);
      values.push_back(t);
    }
    model.copy_from(values);
    if (early_stopping.options().enabled()) {
      early_stopping.from_json(field("early_stopping", &nlohmann::json::is_object), where);
      std::vector<torch::Tensor> best;
      for (size_t i = 0; early_stopping.has_best() && i < model.named_parameters().size(); ++i) {
        torch::Tensor t;
        archive.read("best/" + std::to_string(i), t, /*is_buffer=*/true);
        best.push_back(t);
      }
      early_stopping.set_best_weights(std::move(best));
    }
    torch::serialize::InputArchive optimizer_archive;
    archive.read("optimizer", optimizer_archive);
    optimizer.load(optimizer_archive);
    torch::Tensor rng;
    archive.read("rng", rng, /*is_buffer=*/true);
    {
      auto generator = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_state(rng);
    }
  } catch (const c10::Error& e) {
    fail("{}: cannot read the training checkpoint (truncated, or not one sift wrote): {}", state.string(),
         e.what_without_backtrace());
  }
  return {field("step", &nlohmann::json::is_number_integer).get<int64_t>(),
          field("loss_ema", &nlohmann::json::is_number).get<double>(),
          field("loss_ema_weight", &nlohmann::json::is_number).get<double>()};
}

}  // namespace sift::train
