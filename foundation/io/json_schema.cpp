#include "foundation/io/json_schema.hpp"

#include <algorithm>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// valijson's context ("<root>", "[trials]", "[0]") as the path's segments.
std::vector<std::string> segments(const std::vector<std::string>& context) {
  std::vector<std::string> out;
  for (const auto& c : context)
    if (c.size() >= 2 && c.front() == '[' && c.back() == ']') out.push_back(c.substr(1, c.size() - 2));
  return out;
}

// RFC 6901: '~' is written ~0 and '/' ~1 inside a segment.
std::string pointer_of(const std::vector<std::string>& segs) {
  std::string p;
  for (const auto& s : segs) {
    p += "/";
    for (char c : s) p += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  }
  return p;
}

// The instance's value at the path's segments, or null (keys are taken as
// they are: no pointer text is parsed, so any key is safe).
const json* value_at(const json& instance, const std::vector<std::string>& segs) {
  const json* v = &instance;
  for (const auto& s : segs) {
    if (v->is_object() && v->contains(s)) v = &(*v)[s];
    else if (v->is_array() && !s.empty() && std::all_of(s.begin(), s.end(), ::isdigit) && s.size() < 10 && std::stoul(s) < v->size())
      v = &(*v)[std::stoul(s)];
    else return nullptr;
  }
  return v;
}

// The schema nodes along the instance path (root first), $refs followed.
std::vector<const json*> nodes_along(const json& doc, const json& instance, const std::vector<std::string>& segs) {
  auto resolve = [&](const json* n) {
    for (int hops = 0; n && n->is_object() && n->contains("$ref") && hops < 16; ++hops) {
      const std::string ref = (*n)["$ref"].get<std::string>();
      // Our own schemas' refs ("#/definitions/NAME"); anything else is not followed.
      n = ref.starts_with("#/definitions/") && doc.contains("definitions") && doc["definitions"].contains(ref.substr(14))
              ? &doc["definitions"][ref.substr(14)]
              : nullptr;
    }
    return n;
  };
  std::vector<const json*> out{resolve(&doc)};
  const json* inst = &instance;
  for (const auto& s : segs) {
    const json* n = out.back();
    const json* next = nullptr;
    if (n && n->is_object()) {
      if (inst && inst->is_array() && n->contains("items")) next = &(*n)["items"];
      else if (n->contains("properties") && (*n)["properties"].contains(s)) next = &(*n)["properties"][s];
      else if (n->contains("additionalProperties") && (*n)["additionalProperties"].is_object()) next = &(*n)["additionalProperties"];
    }
    if (inst && inst->is_array()) {
      const size_t i = std::all_of(s.begin(), s.end(), ::isdigit) && !s.empty() ? std::stoul(s) : inst->size();
      inst = i < inst->size() ? &(*inst)[i] : nullptr;
    } else {
      inst = inst && inst->is_object() && inst->contains(s) ? &(*inst)[s] : nullptr;
    }
    out.push_back(resolve(next));
  }
  return out;
}

std::string quoted_after(const std::string& text, const std::string& marker) {
  const size_t a = text.find(marker);
  if (a == std::string::npos) return "";
  const size_t b = a + marker.size(), e = text.find('\'', b);
  return e == std::string::npos ? "" : text.substr(b, e - b);
}

}  // namespace

std::string json_value_name(const json& v) {
  const std::string dump = v.dump();
  const std::string shown = dump.size() > 60 ? dump.substr(0, 57) + "..." : dump;
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean " + shown;
  if (v.is_number_integer()) return "an integer " + shown;
  if (v.is_number()) return "a number " + shown;
  if (v.is_string()) return "a string " + shown;
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " values";
  return "an object";
}

struct json_schema::impl {
  valijson::Schema schema;
};

json_schema::json_schema(json doc) : doc_(std::move(doc)), impl_(std::make_unique<impl>()) {
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(doc_);
  parser.populateSchema(adapter, impl_->schema);
}

json_schema::~json_schema() = default;

std::vector<schema_problem> json_schema::problems(const json& instance) const {
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(instance);
  if (validator.validate(impl_->schema, target, &results)) return {};
  struct raw {
    std::vector<std::string> segs;
    std::string description;
  };
  std::vector<raw> errors;
  valijson::ValidationResults::Error e;
  while (results.popError(e)) errors.push_back({segments(e.context), e.description});
  // valijson's summaries of a child's failure ("... associated with property
  // name 'K'", "... item #N") say nothing a child's own error does not; but
  // some failures (propertyNames) leave only a summary: then it is the
  // problem, at the child it names.
  auto summary_child = [](const std::string& d) {
    if (std::string k = quoted_after(d, "associated with property name '"); !k.empty()) return k;
    const std::string item = "Failed to validate item #";
    if (d.starts_with(item)) return d.substr(item.size(), d.find_first_not_of("0123456789", item.size()) - item.size());
    return std::string();
  };
  const bool only_summaries = std::all_of(errors.begin(), errors.end(), [&](const raw& r) {
    return !summary_child(r.description).empty() || r.description.starts_with("Failed to validate against child schema");
  });
  std::vector<raw> kept;
  for (auto& r : errors) {
    const std::string child = summary_child(r.description);
    if (child.empty() && r.description.starts_with("Failed to validate against child schema")) continue;
    if (child.empty()) kept.push_back(r);
    else if (only_summaries) kept.push_back({[&] { auto s = r.segs; s.push_back(child); return s; }(), "the schema refuses this value"});
  }
  errors = std::move(kept);
  std::stable_sort(errors.begin(), errors.end(), [](const raw& a, const raw& b) { return a.segs.size() > b.segs.size(); });
  std::vector<schema_problem> out;
  for (auto& r : errors) {
    const auto nodes = nodes_along(doc_, instance, r.segs);
    schema_problem p;
    if (const std::string missing = quoted_after(r.description, "Missing required property '"); !missing.empty()) {
      p = {pointer_of(r.segs) + "/" + missing, "required field is missing"};
    } else if (const std::string extra = quoted_after(r.description, "'additionalProperties' constraints: '"); !extra.empty()) {
      const json* n = nodes.back();
      std::string known;
      if (n && n->contains("properties"))
        for (auto it = (*n)["properties"].begin(); it != (*n)["properties"].end(); ++it) known += (known.empty() ? "" : ", ") + it.key();
      const std::string what = n && n->contains("unknown") ? (*n)["unknown"].get<std::string>() : "unknown field";
      p = {pointer_of(r.segs) + "/" + extra, what + " '" + extra + "'" + (known.empty() ? "" : " (expected one of: " + known + ")")};
    } else {
      std::string expected;
      for (const json* n : nodes)
        if (n && n->is_object() && n->contains("expected")) expected = (*n)["expected"].get<std::string>();
      const json* v = value_at(instance, r.segs);
      const json* last = nodes.back();
      const bool own = last && last->is_object() && last->contains("expected");
      p.pointer = pointer_of(r.segs);
      p.expected = !expected.empty() && own ? "expected " + expected + (v ? "; got " + json_value_name(*v) : "")
                   : !expected.empty()      ? "expected " + expected + " (" + r.description + ")"
                                            : r.description;
    }
    if (std::none_of(out.begin(), out.end(), [&](const schema_problem& q) { return q.pointer == p.pointer && q.expected == p.expected; }))
      out.push_back(std::move(p));
  }
  return out;
}

void json_schema::check(const json& instance, const std::string& file, const std::string& at) const {
  const auto p = problems(instance);
  if (!p.empty()) {
    const std::string where = at + p.front().pointer;
    throw input_error(file, where.empty() ? "/" : where, p.front().expected);
  }
}

}  // namespace sdc
