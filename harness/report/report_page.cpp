#include "harness/report/report_page.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "foundation/io/data_files.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/report/report_summary.hpp"
#include "harness/results/result_set_reader.hpp"

namespace sdc {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: not found; run scripts/setup.sh (npm ci installs the report's libraries)", p.string()));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Text inside <script>: only "</script" closes the element. In JSON "<\/" is
// the same string; in the libraries' code "</script" occurs only in strings
// and regular expressions, where "<\/" means the same.
std::string script_safe(std::string s, const std::string& what = "</script") {
  for (size_t i = 0; (i = s.find(what, i)) != std::string::npos; i += what.size() + 1) s.replace(i, 2, "<\\/");
  return s;
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out.flush()) throw input_error(p.string(), "--out", "a writable directory");
}

const char* k_style = R"(
body { font: 15px/1.45 Helvetica, Arial, sans-serif; color: #212121; max-width: 1180px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { border-top: 2px solid #1f4e79; padding-top: .6em; margin-top: 2.4em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: 13px; }
th, td { border-bottom: 1px solid #e0e0e0; padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.provenance th { font-weight: normal; color: #616161; }
tr.significant td { background: #ffebee; }
figure { margin: 1.6em 0; overflow-x: auto; } figcaption { font-size: 13px; color: #424242; max-width: 900px; }
nav li { margin: .15em 0; } .note { color: #616161; font-size: 13px; }
)";

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string section_id(const std::string& file, std::vector<std::string>& taken) {
  std::string id;
  for (char c : fs::path(file).stem().string()) id += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '-';
  if (id.empty()) id = "set";
  std::string unique = id;
  for (int n = 2; std::find(taken.begin(), taken.end(), unique) != taken.end(); ++n) unique = fmt::format("{}-{}", id, n);
  taken.push_back(unique);
  return unique;
}

size_t write_report(const report_request& req, const std::string& dir) {
  const fs::path root(dir), specs = root / "specs", figures = root / "figures";
  std::error_code ec;
  fs::create_directories(specs, ec);
  if (!ec) fs::create_directories(figures, ec);
  if (ec) throw input_error(dir, "--out", fmt::format("a directory sdcbench can create ({})", ec.message()));
  fs::remove(root / "index.html", ec);
  for (const auto* sub : {&specs, &figures})
    for (const auto& e : fs::directory_iterator(*sub)) fs::remove(e.path(), ec);  // no stale figures of another report

  const fs::path modules = data_file("node_modules");  // foundation/io/data_files.hpp
  const std::string libs = read_text(modules / "vega/build/vega.min.js") + "\n" +
                           read_text(modules / "vega-lite/build/vega-lite.min.js") + "\n" +
                           read_text(modules / "vega-embed/build/vega-embed.min.js");

  nlohmann::json all_specs = nlohmann::json::object();
  std::string body, toc;
  int figure_no = 0;
  auto figures_html = [&](const std::vector<chart>& charts) {
    std::string h;
    for (const auto& c : charts) {
      all_specs[c.id] = c.spec;
      write_text(specs / (c.id + ".vl.json"), c.spec.dump(1));
      h += fmt::format(
          "<figure id=\"fig-{0}\"><div class=\"chart\" data-chart=\"{0}\"></div><figcaption><b>Figure {1}. {2}.</b> {3} "
          "<a href=\"figures/{0}.svg\">SVG</a> · <a href=\"specs/{0}.vl.json\">Vega-Lite spec</a></figcaption></figure>\n",
          c.id, ++figure_no, html_escape(c.title), html_escape(c.caption));
    }
    return h;
  };
  body += req.lead_html + figures_html(req.lead_charts);
  size_t n_charts = req.lead_charts.size();
  for (const auto& s : req.sections) {
    const result_set& r = *s.result;
    const auto charts = charts_of(r, s.id);
    n_charts += charts.size();
    const std::string& name = r.suite.name;
    toc += fmt::format("<li><a href=\"#{}\">{}</a> <span class=\"note\">({}, {} charts)</span></li>\n", s.id, html_escape(name),
                       html_escape(s.file), charts.size());
    body += fmt::format("<section id=\"{}\"><h2>{}</h2><p>{}</p>\n", s.id, html_escape(name),
                        html_escape(r.suite.description.value_or("")));
    body += provenance_html(r, s.file) + summary_html(r) + figures_html(charts) + "</section>\n";
  }
  std::string page = fmt::format(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>\n<style>{1}</style>\n"
      "<script>{2}</script>\n</head><body>\n<header><h1>{0}</h1><p class=\"note\">sdcbench {3}: {4} result set(s), {5} "
      "charts. Every number on this page is read from the result sets named below; the paper's published values appear "
      "only where a suite carries them, marked as such.</p></header>\n<nav><ul>{6}</ul></nav>\n{7}\n"
      "<script type=\"application/json\" id=\"sdcbench-specs\">{8}</script>\n<script>\n"
      "const sdcbenchSpecs = JSON.parse(document.getElementById('sdcbench-specs').textContent);\n"
      "window.sdcbenchRendered = Promise.all(Object.entries(sdcbenchSpecs).map(([id, spec]) =>\n"
      "  vegaEmbed(`[data-chart=\"${{id}}\"]`, spec, {{renderer: 'svg', actions: false}}).catch((e) => {{\n"
      "    console.error(`chart ${{id}}: ${{e.message}}`);\n"
      "    document.querySelector(`[data-chart=\"${{id}}\"]`).textContent = `chart ${{id}} failed: ${{e.message}}`;\n"
      "    throw e; }})));\n</script>\n</body></html>\n",
      html_escape(req.title), k_style, script_safe(libs), SDCBENCH_VERSION, req.sections.size(), n_charts, toc, body,
      script_safe(all_specs.dump(), "</"));

  const fs::path script = data_file("report/render_svg.mjs");
  const std::string cmd = fmt::format("node '{}' '{}' '{}'", script.string(), specs.string(), figures.string());
  if (dir.find('\'') != std::string::npos) throw input_error(dir, "--out", "a path without a single quote");
  const int rc = std::system((cmd + " >/dev/null").c_str());
  if (rc != 0) throw std::runtime_error(fmt::format("rendering the figures failed (exit {}): {}", rc, cmd));
  const fs::path tmp = root / "index.html.partial";
  write_text(tmp, page);
  fs::rename(tmp, root / "index.html");
  return n_charts;
}

}  // namespace sdc
