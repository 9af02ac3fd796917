// Precompiled for the training workload and the programs that include its
// headers (SDCBENCH_ENABLE_PCH): libtorch's headers dominate their compile time.
#pragma once
#include <torch/torch.h>
#include "cmake/pch_core.hpp"
