// Every transport's --json result follows the shipped schema (schema/result-v1.schema.json), and
// so does every result the other tests read (run_json_command checks each one); the check itself
// refuses a document off the schema.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>

using namespace evb::test;

namespace {

struct SchemaRun {
    const char* name;
    std::string command; // after it: --quiet --json FILE
};

class ResultSchema : public ::testing::TestWithParam<SchemaRun> {};

TEST_P(ResultSchema, EachTransportsResultFollowsTheShippedSchema) {
    const auto doc = run_json_command(GetParam().command, std::string("schema_") + GetParam().name, 180); // checks the schema
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc["schema"], "evbench-result-v1");
}

std::vector<SchemaRun> runs() {
    const std::string evbench = evbench_binary();
    std::vector<SchemaRun> r{
        {"local", evbench + " --duration 0.3s --fragment-size 64KiB"},
        {"local_microbenchmark", evbench + " --benchmark gather --duration 0.3s --fragment-size 64KiB"},
        {"tcp", evbench + " --transport tcp --launch-local 3 --duration 0.3s --fragment-size 64KiB"},
        {"tcp_push_split",
         evbench +
             " --transport tcp --launch-local 4 --protocol push --layout split --readout-nodes 2 --builder-nodes 2 --duration 0.3s "
             "--fragment-size 64KiB"},
        {"sim", evbench + " --transport sim --nodes 8 --duration 300us"},
    };
#ifdef EVB_HAVE_OFI
    r.push_back({"ofi", evbench + " --transport ofi --ofi-provider 'tcp;ofi_rxm' --launch-local 2 --duration 0.3s --fragment-size 64KiB"});
#endif
#ifdef EVB_HAVE_UCX
    r.push_back({"ucx", evbench + " --transport ucx --ucx-tls tcp --launch-local 2 --duration 0.3s --fragment-size 64KiB"});
#endif
#ifdef EVB_HAVE_MPI
    const std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 ";
    r.push_back({"mpi_mpirun", mpirun + evbench + " --transport mpi --duration 0.3s --fragment-size 64KiB"});
    r.push_back({"mpi_mpirun_baseline", mpirun + evbench + " --transport mpi --baseline alltoall --duration 0.3s --fragment-size 64KiB"});
#endif
    return r;
}

INSTANTIATE_TEST_SUITE_P(Transports, ResultSchema, ::testing::ValuesIn(runs()), [](const auto& p) { return std::string(p.param.name); });

// The check is one that can fail: a result without its system's events, or with a rate below
// zero, or of another schema version, is refused, naming where.
TEST(ResultSchemaCheck, ADocumentOffTheSchemaIsRefusedNamingWhere) {
    const auto doc = run_evbench_json("--duration 0.2s --fragment-size 64KiB", "schema_base");
    ASSERT_FALSE(doc.is_null());
    const std::string validate = "/usr/bin/python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tests/validate_result.py " + EVBENCH_SOURCE_DIR +
        "/schema/result-v1.schema.json ";
    auto broken = [&](const std::string& name, const std::function<void(nlohmann::json&)>& change) {
        nlohmann::json d = doc;
        change(d);
        const std::string path = temp_path(name + ".json");
        std::ofstream(path) << d.dump();
        return run_command(validate + path, 60);
    };
    auto r = broken("schema_no_events", [](nlohmann::json& d) { d["results"]["system"].erase("events_built"); });
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("results/system: 'events_built' is a required property"), std::string::npos) << r.out;
    r = broken("schema_negative_rate", [](nlohmann::json& d) { d["results"]["nodes"][0]["in_gbps"] = -1.0; });
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("results/nodes/0/in_gbps"), std::string::npos) << r.out;
    r = broken("schema_version", [](nlohmann::json& d) { d["schema"] = "evbench-result-v2"; });
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("schema: 'evbench-result-v1' was expected"), std::string::npos) << r.out;
}

} // namespace
