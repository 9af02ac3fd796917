// Precompiled for every target that links sdcbench_core (SDCBENCH_ENABLE_PCH):
// the heavy third-party headers most files include. Nothing of the project's
// own goes here, so a change to a project header never rebuilds the PCH.
#pragma once
#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>
