// A suite's cells (suite.hpp): the cross product of its axes in the
// workload's order, each cell's key and hash, the workload's skips, and an
// axis value no cell can run as an error naming where it came from; and the
// published number a cell and detector are matched to.
#include <algorithm>
#include <string>
#include <vector>

#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "harness/campaign/suite.hpp"

namespace sdc {

using json = nlohmann::json;

expansion expand(const suite& s) {
  expansion e;
  size_t total = 1;
  for (const auto& [name, vals] : s.axes) total *= vals.size();
  std::vector<size_t> idx(s.axes.size(), 0);
  const std::vector<std::string> fault_axes = s.wl->clean_set_fault_axes();
  for (size_t n = 0; n < total; ++n) {
    cell c;
    c.index = n;
    c.base_dir = s.base_dir;
    size_t rem = n;
    for (size_t a = s.axes.size(); a-- > 0;) {
      idx[a] = rem % s.axes[a].second.size();
      rem /= s.axes[a].second.size();
    }
    for (size_t a = 0; a < s.axes.size(); ++a) {
      const std::string& v = s.axes[a].second[idx[a]];
      c.axes.emplace_back(s.axes[a].first, v);
      if (const auto& kv = s.wl->axes()[a].keyless_value; !kv.empty() && v == kv) continue;  // axis_def::keyless_value
      c.key += (c.key.empty() ? "" : ";") + s.axes[a].first + "=" + v;
    }
    c.hash = fnv1a64(c.key);
    if (!fault_axes.empty()) c.clean_set = clean_set_id(c.axes, fault_axes);
    c.typed = s.wl->parse(c);  // every axis value typed once, here
    e.skipped.push_back(s.wl->skip_reason(c));
    e.cells.push_back(std::move(c));
  }
  // An axis value whose every cell is skipped because of that axis asks for nothing.
  for (size_t a = 0; a < s.axes.size(); ++a) {
    for (const auto& v : s.axes[a].second) {
      bool runnable = false;
      std::string reason;
      for (size_t n = 0; n < e.cells.size() && !runnable; ++n) {
        if (e.cells[n].axes[a].second != v) continue;
        if (!e.skipped[n] || e.skipped[n]->axis != s.axes[a].first) runnable = true;
        else if (reason.empty()) reason = e.skipped[n]->reason;
      }
      if (!runnable) {
        const auto& name = s.axes[a].first;
        const std::string& origin = s.axis_origin.at(name);
        const auto& vals = s.axes[a].second;
        const size_t pos = size_t(std::find(vals.begin(), vals.end(), v) - vals.begin());
        if (origin.starts_with("--axis")) throw input_error("--axis", name, "value " + v + " can never run: " + reason);
        if (origin == "(default)")
          throw input_error(s.file, "/axes/" + name, "the default value " + v + " can never run in this suite: " + reason);
        throw input_error(s.file, origin + "/" + std::to_string(pos), "value " + v + " can never run in this suite: " + reason);
      }
    }
  }
  return e;
}

nlohmann::json reference_for(const suite& s, const cell& c, const std::string& detector_label) {
  for (const auto& r : s.references) {
    bool match = true;
    for (auto it = r["where"].begin(); it != r["where"].end() && match; ++it) {
      if (it.key() == "detector") match = it->get<std::string>() == detector_label;
      else match = c.at(it.key()) == it->get<std::string>();
    }
    if (match) {
      json out = r["published"];
      if (!r["note"].get<std::string>().empty()) out["note"] = r["note"];
      return out;
    }
  }
  return nullptr;
}

}  // namespace sdc
