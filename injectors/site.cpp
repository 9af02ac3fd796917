#include "injectors/site.hpp"

#include <algorithm>
#include <boost/random/uniform_int_distribution.hpp>
#include <fmt/format.h>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

std::vector<int64_t> parse_ints(std::string_view args, std::string_view what) {
  std::vector<int64_t> out;
  std::string a(args);
  size_t pos = 0;
  for (;;) {
    const size_t comma = a.find(',', pos);
    const std::string tok = a.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    try {
      size_t used = 0;
      const long long v = std::stoll(tok, &used);
      if (used != tok.size() || v < 0) throw std::invalid_argument(tok);
      out.push_back(v);
    } catch (const std::exception&) {
      throw value_error(std::string(what) + ": expected non-negative integers; got '" + tok + "'");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

bool split_call(std::string_view text, std::string_view name, std::string_view* args) {
  if (!text.starts_with(name) || text.size() < name.size() + 2 || text[name.size()] != '(' || text.back() != ')')
    return false;
  *args = text.substr(name.size() + 1, text.size() - name.size() - 2);
  return true;
}

}  // namespace

std::string site_rule::text() const {
  switch (k) {
    case kind::uniform: return "uniform";
    case kind::at: return fmt::format("at({},{})", i, j);
    case kind::row: return fmt::format("row({})", i);
    case kind::col: return fmt::format("col({})", j);
    case kind::max_abs: return "max_abs";
    case kind::run: return fmt::format("run({})", i);
    case kind::strided: return fmt::format("strided({},{})", i, j);
    case kind::full_row: return "full_row";
    case kind::full_col: return "full_col";
  }
  return "?";
}

std::string site_rule::check(int64_t rows, int64_t cols) const {
  if ((k == kind::at || k == kind::row) && i >= rows) return fmt::format("site {} outside a {}x{} tensor", text(), rows, cols);
  if ((k == kind::at || k == kind::col) && j >= cols) return fmt::format("site {} outside a {}x{} tensor", text(), rows, cols);
  return {};
}

int64_t site_rule::draw(int64_t rows, int64_t cols, rng& g) const {
  using u = boost::random::uniform_int_distribution<int64_t>;
  switch (k) {
    case kind::uniform: return u(0, rows * cols - 1)(g);
    case kind::at: return i * cols + j;
    case kind::row: return i * cols + u(0, cols - 1)(g);
    case kind::col: return u(0, rows - 1)(g) * cols + j;
    default: throw std::logic_error("site " + text() + " is not one element: use inject_pattern");
  }
  return 0;
}

std::vector<int64_t> site_rule::draw_pattern(int64_t rows, int64_t cols, rng& g) const {
  using u = boost::random::uniform_int_distribution<int64_t>;
  const int64_t n = rows * cols;
  std::vector<int64_t> out;
  if (n <= 0) return out;
  switch (k) {
    case kind::run: {
      const int64_t len = std::min(i, n), start = u(0, n - len)(g);
      for (int64_t e = 0; e < len; ++e) out.push_back(start + e);
      break;
    }
    case kind::strided: {
      const int64_t len = std::min(j, (n - 1) / i + 1), start = u(0, n - 1 - (len - 1) * i)(g);
      for (int64_t e = 0; e < len; ++e) out.push_back(start + e * i);
      break;
    }
    case kind::full_row: {
      const int64_t r = u(0, rows - 1)(g);
      for (int64_t c = 0; c < cols; ++c) out.push_back(r * cols + c);
      break;
    }
    case kind::full_col: {
      const int64_t c = u(0, cols - 1)(g);
      for (int64_t r = 0; r < rows; ++r) out.push_back(r * cols + c);
      break;
    }
    default: throw std::logic_error("site " + text() + " is not a drawn pattern");
  }
  return out;
}

site_rule parse_site_rule(std::string_view text) {
  site_rule r;
  std::string_view args;
  if (text == "uniform") return r;
  if (text == "max_abs") {
    r.k = site_rule::kind::max_abs;
    return r;
  }
  if (text == "full_row" || text == "full_col") {
    r.k = text == "full_row" ? site_rule::kind::full_row : site_rule::kind::full_col;
    return r;
  }
  if (split_call(text, "run", &args)) {
    auto v = parse_ints(args, "run(L)");
    if (v.size() != 1 || v[0] < 1) throw value_error("run(L): expected a length L >= 1; got '" + std::string(text) + "'");
    r.k = site_rule::kind::run, r.i = v[0];
    return r;
  }
  if (split_call(text, "strided", &args)) {
    auto v = parse_ints(args, "strided(S,L)");
    if (v.size() != 2 || v[0] < 1 || v[1] < 1)
      throw value_error("strided(S,L): expected a stride S >= 1 and a count L >= 1; got '" + std::string(text) + "'");
    r.k = site_rule::kind::strided, r.i = v[0], r.j = v[1];
    return r;
  }
  if (split_call(text, "at", &args)) {
    auto v = parse_ints(args, "at(I,J)");
    if (v.size() != 2) throw value_error("at(I,J): expected two indices; got '" + std::string(text) + "'");
    r.k = site_rule::kind::at, r.i = v[0], r.j = v[1];
    return r;
  }
  if (split_call(text, "row", &args)) {
    auto v = parse_ints(args, "row(I)");
    if (v.size() != 1) throw value_error("row(I): expected one index");
    r.k = site_rule::kind::row, r.i = v[0];
    return r;
  }
  if (split_call(text, "col", &args)) {
    auto v = parse_ints(args, "col(J)");
    if (v.size() != 1) throw value_error("col(J): expected one index");
    r.k = site_rule::kind::col, r.j = v[0];
    return r;
  }
  throw value_error("expected a site: uniform, at(I,J), row(I), col(J), max_abs, run(L), strided(S,L), full_row or full_col; got '" +
                    std::string(text) + "'");
}

std::string step_schedule::text() const {
  switch (k) {
    case kind::always: return "always";
    case kind::cycle: return fmt::format("cycle({},{})", start, every);
    case kind::specific: {
      std::string s = "specific(";
      for (size_t n = 0; n < steps.size(); ++n) s += (n ? "," : "") + std::to_string(steps[n]);
      return s + ")";
    }
    case kind::uniform: return fmt::format("uniform({},{})", start, every);
  }
  return "?";
}

step_schedule step_schedule::drawn(rng& g) const {
  if (k != kind::uniform) return *this;
  step_schedule s;
  s.k = kind::specific;
  s.steps = {boost::random::uniform_int_distribution<int64_t>(start, every)(g)};
  return s;
}

int64_t step_schedule::earliest() const {
  switch (k) {
    case kind::always: return 0;
    case kind::cycle: return start + every;
    case kind::specific: return steps.empty() ? 0 : steps.front();
    case kind::uniform: return start;
  }
  return 0;
}

bool step_schedule::fires(int64_t step) const {
  switch (k) {
    case kind::always: return true;
    case kind::cycle: return step > start && (step - start) % every == 0;  // 003: never at step = start
    case kind::specific: return std::binary_search(steps.begin(), steps.end(), step);
    case kind::uniform: throw std::logic_error("a uniform(A,B) schedule fires once drawn (step_schedule::drawn)");
  }
  return false;
}

step_schedule parse_step_schedule(std::string_view text) {
  step_schedule s;
  std::string_view args;
  if (text == "always") return s;
  if (split_call(text, "cycle", &args)) {
    auto v = parse_ints(args, "cycle(START,EVERY)");
    if (v.size() != 2 || v[1] < 1) throw value_error("cycle(START,EVERY): expected START >= 0 and EVERY >= 1");
    s.k = step_schedule::kind::cycle, s.start = v[0], s.every = v[1];
    return s;
  }
  if (split_call(text, "specific", &args)) {
    s.k = step_schedule::kind::specific;
    s.steps = parse_ints(args, "specific(S1,S2,...)");
    std::sort(s.steps.begin(), s.steps.end());
    return s;
  }
  if (split_call(text, "uniform", &args)) {
    auto v = parse_ints(args, "uniform(A,B)");
    if (v.size() != 2 || v[0] < 0 || v[1] < v[0]) throw value_error("uniform(A,B): expected 0 <= A <= B");
    s.k = step_schedule::kind::uniform, s.start = v[0], s.every = v[1];
    return s;
  }
  throw value_error("expected a schedule: always, cycle(START,EVERY), specific(S1,...) or uniform(A,B); got '" + std::string(text) + "'");
}

site_rule single_site(std::string_view text) {
  const site_rule r = parse_site_rule(text);
  if (r.multi())
    throw value_error("expected a site that picks one element: uniform, at(I,J), row(I) or col(J); got '" + r.text() + "'");
  return r;
}

}  // namespace sdc
