#include "report/report_options.hpp"

namespace evb {

void declare_report_options(OptionSet& o, Config& c) {
    o.begin_group("output", "Output");
    o.text("json", c.json_file, "FILE", "write configuration and results as JSON").writes_file().per_rank();
    o.on_off("quiet", c.quiet, "only the summary: no header, progress lines or table rows (the # lines at the end)").per_rank();
    o.choice("rows", c.rows, {{"auto", TableRows::automatic}, {"all", TableRows::all}},
             "the final table's node rows: auto lists every node up to 32, above that the slowest, median and fastest by in_Gbps; "
             "all lists every node")
        .applies_when("a run that prints its table (not --quiet)", [&c] { return !c.quiet; })
        .per_rank();
    o.choice("format", c.format, {{"table", ReportFormat::table}, {"csv", ReportFormat::csv}, {"kv", ReportFormat::kv}},
             "what standard output carries at the end: table; csv, a header and one row with tools/aggregate.py's columns; kv, one "
             "line of key=value; with csv and kv everything else goes to standard error")
        .per_rank();
}

} // namespace evb
