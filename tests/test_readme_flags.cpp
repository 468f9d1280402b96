// The docs' flag tables are the option declarations: every table a command generates from them
// (`evbench [COMMAND] --flags-markdown`) appears verbatim in README.md or a page of docs/, once,
// no page has a table no command declares, and a group shared by two commands (fabric, model)
// reads the same in both.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <vector>

using namespace evb::test;

namespace {

std::map<std::string, std::string> blocks_of(const std::string& text) {
    std::map<std::string, std::string> blocks;
    static const std::regex block(R"(<!-- flags: (\S+) -->\n[\s\S]*?<!-- /flags -->\n)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), block); it != std::sregex_iterator(); ++it)
        blocks.emplace((*it)[1].str(), (*it)[0].str());
    return blocks;
}

// Every flag table of README.md and docs/*.md, by group; a group in two places is a failure.
std::map<std::string, std::string> tables_in_the_docs() {
    const std::string root = EVBENCH_SOURCE_DIR;
    std::vector<std::string> pages = {root + "/README.md"};
    for (const auto& e : std::filesystem::directory_iterator(root + "/docs"))
        if (e.path().extension() == ".md") pages.push_back(e.path().string());
    std::map<std::string, std::string> all;
    for (const auto& page : pages)
        for (auto& [group, table] : blocks_of(read_file(page)))
            EXPECT_TRUE(all.emplace(group, table).second) << "the flag table '" << group << "' is in two places (again in " << page << ")";
    return all;
}

TEST(ReadmeFlags, EveryTableEqualsTheDeclarations) {
    const auto in_readme = tables_in_the_docs();
    ASSERT_FALSE(in_readme.empty());
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
                ADD_FAILURE() << "the docs lack the flag table '" << group << "' (run tools/readme_flags.py after adding its markers)";
                continue;
            }
            EXPECT_EQ(in->second, table) << "the docs' table '" << group << "' differs from the declarations: run tools/readme_flags.py";
        }
    }
    for (const auto& [group, table] : in_readme)
        EXPECT_TRUE(declared.count(group)) << "the docs have a table no command declares: " << group;
}

TEST(ReadmeFlags, EveryDeclaredFlagIsAcceptedAndEchoed) {
    // The declaration is the flag and the JSON echo: a run with a flag set echoes its value.
    std::string json = temp_path("echo.json");
    auto r =
        run_command(evbench_binary() + " --quiet --events 40 --nodes 3 --credits 3 --fragment-size 8KiB --grace 7s --json " + json, 60);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto text = read_file(json);
    EXPECT_NE(text.find("\"credits\": 3"), std::string::npos) << text;
    EXPECT_NE(text.find("\"fragment_size\": 8192"), std::string::npos) << text;
    EXPECT_NE(text.find("\"grace_s\": 7.0"), std::string::npos) << text;
    EXPECT_EQ(text.find("\"verbs_port\""), std::string::npos) << "another driver's options are not echoed: " << text;
}

} // namespace
