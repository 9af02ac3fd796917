#include "harness/campaign/suite.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "detectors/adapters.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "foundation/io/input_schemas.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/io/json_schema.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// Failures of what the schema cannot know (the registries, the workload's
// axes): input_error naming the suite file and the JSON path.
class suite_reader {
 public:
  explicit suite_reader(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
    throw input_error(file_, path.empty() ? "/" : path, expected);
  }

 private:
  std::string file_;
};

// Splits "a,b(c,d),e" at top-level commas.
std::vector<std::string> split_values(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char ch : s) {
    if (ch == '(') ++depth;
    if (ch == ')') --depth;
    if (ch == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

// "7:14" -> 7,8,...,14.
std::vector<std::string> expand_ranges(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  const std::regex range("^(\\d+):(\\d+)$");
  for (const auto& v : in) {
    std::smatch m;
    if (std::regex_match(v, m, range)) {
      const int lo = std::stoi(m[1]), hi = std::stoi(m[2]);
      if (lo > hi) throw value_error("range " + v + " is empty (need A <= B)");
      for (int i = lo; i <= hi; ++i) out.push_back(std::to_string(i));
    } else {
      out.push_back(v);
    }
  }
  return out;
}

// An axis value as text (the schema allows strings and numbers).
std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return fmt::format("{}", v.get<double>());
}

}  // namespace

suite load_suite(const std::string& path, const std::string& scale, const std::vector<std::string>& overrides) {
  suite s;
  s.file = path;
  s.scale = scale;
  s.axis_overrides = overrides;
  suite_reader rd(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "file", "expected a readable suite file; cannot open it");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  s.sha256 = sha256_hex(bytes);
  s.base_dir = std::filesystem::path(path).parent_path().string();
  const json j = parse_json_text(bytes, path);
  static const json_schema schema(json::parse(suite_schema_text()));
  schema.check(j, path);  // the structure; below, what depends on the registries
  s.name = j["name"];
  s.description = j.value("description", "");
  const std::string wname = j["workload"];
  s.wl = find_workload(wname);
  if (!s.wl) {
    std::string names;
    for (auto* w : all_workloads()) names += (names.empty() ? "" : ", ") + w->name();
    rd.fail("/workload", "unknown workload \"" + wname + "\"; expected one of: " + names);
  }
  if (j.contains("reproduces")) {
    const auto& r = j["reproduces"];
    if (r.is_object() && r.contains("pool_over")) {
      const auto& po = r["pool_over"];
      for (size_t i = 0; i < po.size(); ++i) {
        const bool known = std::any_of(s.wl->axes().begin(), s.wl->axes().end(), [&](const axis_def& a) { return a.name == po[i].get<std::string>(); });
        if (!known) rd.fail("/reproduces/pool_over/" + std::to_string(i), "expected an axis name of workload " + wname + "; got " + po[i].dump());
      }
    }
    s.reproduces = r;
  }
  s.seed = j["seed"].get<uint64_t>();

  // Presets: the chosen one overrides trials/axes.
  const auto& presets = j["presets"];
  if (!presets.contains(scale))
    throw input_error(path, "/presets/" + scale, "the suite has no preset \"" + scale + "\" (expected smoke or full)");
  const json& preset = presets[scale];
  const std::string preset_path = "/presets/" + scale;

  // Trials.
  auto read_trials = [&](const json& t) {
    if (t.contains("faulty")) s.faulty_trials = t["faulty"];
    if (t.contains("clean")) s.clean_trials = t["clean"];
  };
  read_trials(j["trials"]);
  if (preset.contains("trials")) read_trials(preset["trials"]);
  if (s.faulty_trials + s.clean_trials == 0) rd.fail("/trials", "expected at least one faulty or clean trial");

  // Axes: defaults, then the suite, then the preset, then the command line.
  std::map<std::string, std::vector<std::string>> values;
  std::map<std::string, std::string> origin;  // axis -> JSON path (or --axis) for error messages
  for (const auto& a : s.wl->axes()) values[a.name] = a.defaults, origin[a.name] = "(default)";
  auto canonical = [&](const axis_def& a, const std::string& text, const std::string& where) {
    try {
      return a.canonical(text, s.base_dir);
    } catch (const input_error& e) {
      throw input_error(path, where, std::string("axis ") + a.name + ": " + e.what());
    } catch (const value_error& e) {
      throw input_error(path, where, e.what());
    } catch (const std::logic_error&) {  // a number std::stoll/stod cannot hold (out_of_range) or read
      throw input_error(path, where, "axis " + a.name + ": '" + text + "': a number in it is out of range or unreadable");
    }
  };
  auto find_axis = [&](const std::string& name) -> const axis_def* {
    for (const auto& a : s.wl->axes())
      if (a.name == name) return &a;
    return nullptr;
  };
  auto axis_names = [&] {
    std::string n;
    for (const auto& a : s.wl->axes()) n += (n.empty() ? "" : ", ") + a.name;
    return n;
  };
  auto read_axes = [&](const json& ax, const std::string& p) {
    for (auto it = ax.begin(); it != ax.end(); ++it) {
      const axis_def* a = find_axis(it.key());
      const std::string ap = p + "/" + it.key();
      if (!a) rd.fail(ap, "unknown axis for workload " + s.wl->name() + "; expected one of: " + axis_names());
      std::vector<std::string> vals;
      for (size_t i = 0; i < it->size(); ++i) vals.push_back(canonical(*a, value_text((*it)[i]), ap + "/" + std::to_string(i)));
      values[a->name] = vals;
      origin[a->name] = ap;
    }
  };
  read_axes(j["axes"], "/axes");
  if (preset.contains("axes")) read_axes(preset["axes"], preset_path + "/axes");
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == o.size())
      throw input_error("--axis", o, "expected NAME=VALUE[,VALUE...]");
    const std::string name = o.substr(0, eq);
    const axis_def* a = find_axis(name);
    if (!a) throw input_error("--axis", name, "unknown axis for workload " + s.wl->name() + "; expected one of: " + axis_names());
    std::vector<std::string> vals;
    try {
      for (const auto& v : expand_ranges(split_values(o.substr(eq + 1)))) vals.push_back(a->canonical(v, s.base_dir));
    } catch (const value_error& e) {
      throw input_error("--axis", name, e.what());
    } catch (const std::logic_error&) {
      throw input_error("--axis", name, "'" + o.substr(eq + 1) + "': a number in it is out of range or unreadable");
    }
    values[name] = vals;
    origin[name] = "--axis " + name;
  }
  for (const auto& a : s.wl->axes()) {
    const auto& v = values[a.name];
    std::set<std::string> seen;
    for (const auto& x : v)
      if (!seen.insert(x).second) {
        if (origin[a.name].starts_with("--axis")) throw input_error("--axis", a.name, "value " + x + " listed twice");
        rd.fail(origin[a.name], "value " + x + " listed twice (after canonicalisation)");
      }
    s.axes.emplace_back(a.name, v);
  }
  s.axis_origin = origin;

  // Detectors and recorders.
  std::set<std::string> labels;
  auto read_choices = [&](const char* field, bool recorders) {
    const std::string fp = std::string("/") + field;
    const auto& dets = j[field];
    for (size_t i = 0; i < dets.size(); ++i) {
      const std::string dp = fp + "/" + std::to_string(i);
      const auto& d = dets[i];
      detector_choice c;
      // A detector written in Python: the registered "python" detector of the
      // workload's view, its callable and keyword arguments as parameters
      // (detectors/python/python_detector.cpp).
      const bool python = d.contains("python");
      if (python == d.contains("name")) rd.fail(dp, "expected exactly one of \"name\" (a detector) and \"python\" (\"module:function\")");
      const std::string name = python ? "python" : d["name"].get<std::string>();
      c.info = find_detector(s.wl->view(), name);
      if (!c.info && python)
        rd.fail(dp + "/python", std::string("a detector written in Python; this sdcbench was built without Python (SDCBENCH_ENABLE_PYTHON)"));
      if (!c.info) {
        std::string names;
        for (auto* di : all_detectors())
          if (di->view == s.wl->view() && di->recorder == recorders) names += (names.empty() ? "" : ", ") + di->name;
        rd.fail(dp + "/name", "unknown " + std::string(recorders ? "recorder" : "detector") + " \"" + name + "\" for workload " +
                                  s.wl->name() + "; expected one of: " + names);
      }
      if (c.info->recorder != recorders)
        rd.fail(dp + "/name", recorders ? "\"" + name + "\" is a detector: list it under /detectors"
                                        : "\"" + name + "\" never flags: it is a recorder; list it under /recorders");
      try {
        const json given = d.contains("params") ? d["params"] : json::object();
        c.params = validate_params(*c.info, python ? json{{"callable", d["python"]}, {"kwargs", given}} : given);
      } catch (const value_error& e) {
        rd.fail(dp + "/params", e.what());
      }
      if (d.contains("wrap")) try {
          c.wrap = validate_wraps(d["wrap"]);
        } catch (const value_error& e) {
          rd.fail(dp + "/wrap", e.what());
        }
      c.label = d.value("label", python ? d["python"].get<std::string>() : name);
      if (!labels.insert(c.label).second) rd.fail(dp + "/label", "label \"" + c.label + "\" is used twice; give each variant its own label");
      (recorders ? s.recorders : s.detectors).push_back(std::move(c));
    }
  };
  read_choices("detectors", false);
  if (j.contains("recorders")) read_choices("recorders", true);

  // Paired comparison across one axis (harness/results/paired.hpp).
  if (j.contains("compare")) {
    const auto& c = j["compare"];
    const std::string axis = c["axis"];
    if (!find_axis(axis)) rd.fail("/compare/axis", "expected an axis of workload " + s.wl->name() + "; got \"" + axis + "\"");
    const std::string rec = c["recorder"];
    if (std::none_of(s.recorders.begin(), s.recorders.end(), [&](const detector_choice& d) { return d.label == rec; }))
      rd.fail("/compare/recorder", "expected the label of one of /recorders; got \"" + rec + "\"");
    s.compare = {{"axis", axis}, {"recorder", rec}, {"clusters", nullptr}};
    if (c.contains("clusters")) {
      const std::string cl = c["clusters"];
      if (!find_axis(cl) || cl == axis) rd.fail("/compare/clusters", "expected another axis of workload " + s.wl->name() + " (its value: the number of clusters); got \"" + cl + "\"");
      for (const auto& [name, vals] : s.axes)
        if (name == cl)
          for (const auto& v : vals)
            if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v == "0")
              rd.fail("/compare/clusters", "expected an axis whose values are integers >= 1 (the number of clusters); " + cl + " has \"" + v + "\"");
      s.compare["clusters"] = cl;
    }
  }

  // Published numbers.
  if (j.contains("reference")) {
    const auto& refs = j["reference"];
    for (size_t i = 0; i < refs.size(); ++i) {
      const std::string rp = "/reference/" + std::to_string(i);
      const auto& r = refs[i];
      const auto& where = r["where"];
      json canon_where = json::object();
      for (auto it = where.begin(); it != where.end(); ++it) {
        const std::string wp = rp + "/where/" + it.key();
        if (it.key() == "detector") {
          if (!it->is_string()) rd.fail(wp, "expected a detector's label (text); got " + json_value_name(*it));
          const std::string l = *it;
          if (!labels.count(l)) rd.fail(wp, "no detector with label \"" + l + "\" in /detectors");
          canon_where["detector"] = l;
          continue;
        }
        const axis_def* a = find_axis(it.key());
        if (!a) rd.fail(wp, "expected an axis name or \"detector\"");
        canon_where[it.key()] = canonical(*a, value_text(*it), wp);
      }
      const auto& pub = r["published"];
      s.references.push_back({{"where", canon_where}, {"published", pub}, {"note", r.value("note", "")}});
    }
  }
  return s;
}

}  // namespace sdc
