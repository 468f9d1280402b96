// README's flag tables are the option declarations: every table a command generates from them
// (`evbench [COMMAND] --flags-markdown`) appears verbatim in README.md, README has no table no
// command declares, and a group shared by two commands (fabric, model) reads the same in both.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>

using namespace evb::test;

namespace {

std::map<std::string, std::string> blocks_of(const std::string& text) {
    std::map<std::string, std::string> blocks;
    static const std::regex block(R"(<!-- flags: (\S+) -->\n[\s\S]*?<!-- /flags -->\n)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), block); it != std::sregex_iterator(); ++it)
        blocks.emplace((*it)[1].str(), (*it)[0].str());
    return blocks;
}

TEST(ReadmeFlags, EveryTableEqualsTheDeclarations) {
    const std::string readme = read_file(std::string(EVBENCH_SOURCE_DIR) + "/README.md");
    ASSERT_FALSE(readme.empty());
    const auto in_readme = blocks_of(readme);
    std::map<std::string, std::string> declared;
    for (const std::string command : {"", "conflicts", "fabric", "netsim", "info"}) {
        auto r = run_command(evbench_binary() + " " + command + " --flags-markdown", 30);
        ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
        const auto blocks = blocks_of(r.out);
        ASSERT_FALSE(blocks.empty()) << command;
        for (const auto& [group, table] : blocks) {
            auto [it, fresh] = declared.emplace(group, table);
            EXPECT_EQ(it->second, table) << "group " << group << " differs between commands";
            auto in = in_readme.find(group);
            if (in == in_readme.end()) {
                ADD_FAILURE() << "README lacks the flag table '" << group << "' (run tools/readme_flags.py after adding its markers)";
                continue;
            }
            EXPECT_EQ(in->second, table) << "README's table '" << group << "' differs from the declarations: run tools/readme_flags.py";
        }
    }
    for (const auto& [group, table] : in_readme) EXPECT_TRUE(declared.count(group)) << "README has a table no command declares: " << group;
}

TEST(ReadmeFlags, EveryDeclaredFlagIsAcceptedAndEchoed) {
    // The declaration is the flag and the JSON echo: a run with a flag set echoes its value.
    std::string json = temp_path("echo.json");
    auto r = run_command(evbench_binary() + " --quiet --events 40 --nodes 3 --credits 3 --fragment-size 8KiB --grace 7s --json " + json, 60);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto text = read_file(json);
    EXPECT_NE(text.find("\"credits\": 3"), std::string::npos) << text;
    EXPECT_NE(text.find("\"fragment_size\": 8192"), std::string::npos) << text;
    EXPECT_NE(text.find("\"grace_s\": 7.0"), std::string::npos) << text;
    EXPECT_EQ(text.find("\"verbs_port\""), std::string::npos) << "another driver's options are not echoed: " << text;
}

} // namespace
