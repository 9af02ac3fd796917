// Where sdcbench finds the files it ships (suites, the e_max calibration, the
// report's renderer and chart libraries), and how a result set names files.
//
// The data directory is `share/sdcbench`, looked up beside the binary that
// runs (the program, a test, or the Python module's shared object): its own
// directory or up to four levels above it, so `PREFIX/bin/sdcbench` finds
// `PREFIX/share/sdcbench` and `build/sdcbench` the build tree's
// `build/share/sdcbench` (links into the checkout, made by CMake).
// $SDCBENCH_DATA_DIR comes first when set. No path of the checkout is
// compiled into the core: an installed sdcbench runs with its source deleted.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace sdc {

// The data directory; input_error naming $SDCBENCH_DATA_DIR and the places
// searched when there is none.
std::filesystem::path data_dir();
// `relative` inside it (not checked for existence).
std::filesystem::path data_file(const std::string& relative);
// A file a user names: `name` itself when it exists (absolute, or relative to
// the working directory), else the data directory's `name`.
std::filesystem::path user_or_data_file(const std::string& name);

// How a result set names a file, never by an absolute path of the machine
// that wrote it: relative to the working directory when inside it, else its
// file name (whose content the set identifies by its SHA-256 where it matters).
std::string portable_path(const std::string& path);
// The command line as recorded: the program as "sdcbench", each absolute path
// (also after `--flag=`) through portable_path.
std::vector<std::string> portable_argv(const std::vector<std::string>& argv);

}  // namespace sdc
