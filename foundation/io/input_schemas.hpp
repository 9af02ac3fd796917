// The JSON Schemas of sdcbench's input files, compiled into the binary from
// suites/schema/ (CMakeLists.txt): checked with json_schema.hpp before a
// reader looks at a value.
#pragma once

namespace sdc {

const char* suite_schema_text();            // suites/schema/suite-1.schema.json
const char* training_config_schema_text();  // suites/schema/training-config-1.schema.json

}  // namespace sdc
