// The JSON Schemas of sdcbench's input files, compiled into the binary from
// suites/schema/ (CMakeLists.txt): checked with json_schema.hpp before a
// reader looks at a value.
#pragma once

namespace sdc {

const char* suite_schema_text();            // suites/schema/suite-1.schema.json
const char* training_config_schema_text();  // suites/schema/training-config-1.schema.json
const char* job_schema_text();              // suites/schema/job-1.schema.json (sdcbench plan --job)
const char* fleet_schema_text();            // suites/schema/fleet-1.schema.json (sdcbench plan --fleet, suites/fleets/)

}  // namespace sdc
