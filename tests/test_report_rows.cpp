// The final table's rows (src/report: --rows, --quiet): every node up to 32, above that the
// slowest, median and fastest; --quiet prints the summary lines only.
#include "report/report.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace evb;

namespace {

// A result of `nodes` nodes where node i received (nodes - i) MiB and sent i MiB.
RunResult result_of(const Config& c, std::uint32_t nodes) {
    RunResult r = make_result(c);
    for (std::uint32_t i = 0; i < nodes; ++i) {
        r.nodes[i].bytes_in = std::uint64_t{nodes - i} << 20;
        r.nodes[i].bytes_out = std::uint64_t{i} << 20;
        r.nodes[i].events_built = nodes - i;
    }
    r.elapsed = Picoseconds::from_seconds(1);
    return r;
}

Config config_of(std::uint32_t nodes) {
    Config c;
    c.nodes = nodes;
    return c;
}

} // namespace

TEST(TableRows, EveryNodeUpTo32ThenTheSlowestMedianAndFastest) {
    const Config c32 = config_of(32);
    EXPECT_EQ(table_rows(c32, result_of(c32, 32)).size(), 32u);
    const Config c40 = config_of(40);
    // node 39 received least, node 0 most; the median of 40 sorted by bytes is the 21st slowest.
    EXPECT_EQ(table_rows(c40, result_of(c40, 40)), (std::vector<std::size_t>{39, 19, 0}));
    Config all = c40;
    all.rows = TableRows::all;
    EXPECT_EQ(table_rows(all, result_of(all, 40)).size(), 40u);
}

TEST(TableRows, ASplitLayoutShowsItsReadoutNodesBySendingAndItsBuilderNodesByReceiving) {
    Config c = config_of(40);
    c.layout = NodeLayout::split;
    c.readout_nodes = 20;
    c.builder_nodes = 20;
    // Readout nodes 0..19 by bytes out (0 least), builder nodes 20..39 by bytes in (39 least).
    EXPECT_EQ(table_rows(c, result_of(c, 40)), (std::vector<std::size_t>{0, 10, 19, 39, 29, 20}));
}

TEST(TableRows, TheTableSaysWhichRowsItShowsAndQuietPrintsTheSummaryOnly) {
    Config c = config_of(40);
    const RunResult r = result_of(c, 40);
    std::ostringstream table;
    print_table(table, c, r);
    EXPECT_NE(table.str().find("# 40 nodes: the rows of the slowest, median and fastest node by in_Gbps (--rows all lists every node)"),
              std::string::npos)
        << table.str();
    EXPECT_NE(table.str().find("\n    39 "), std::string::npos) << table.str();
    EXPECT_EQ(table.str().find("\n     5 "), std::string::npos) << table.str();
    c.quiet = true;
    std::ostringstream quiet;
    print_table(quiet, c, r);
    std::istringstream lines(quiet.str());
    for (std::string line; std::getline(lines, line);) EXPECT_EQ(line.rfind("# ", 0), 0u) << line;
    EXPECT_NE(quiet.str().find("# system: 820 events built"), std::string::npos) << quiet.str();
}
