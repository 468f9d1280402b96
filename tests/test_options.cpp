// Option declarations: one declaration parses the flag, echoes the effective value under its JSON
// key and writes its README row; bad values name the flag and what is allowed.
#include "core/options.hpp"
#include "core/quantity.hpp"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <sstream>

using namespace evb;
using namespace evb::literals;

namespace {

enum class Colour { red, green };

struct Declared {
    std::uint32_t count = 3;
    Picoseconds wait = 250_ms;
    std::uint64_t size = 1 << 20;
    Colour colour = Colour::red;
    bool loud = false;
    std::vector<double> scale;
    OptionSet set;
    Declared() {
        set.begin_group("test", "Test");
        set.whole("count", count, "N", "how many");
        set.duration("wait", wait, "how long");
        set.size("size", size, "how big");
        set.choice("colour", colour, {{"red", Colour::red}, {"green", Colour::green}}, "which");
        set.on_off("loud", loud, "how loud");
        set.real_list("scale", scale, "a,b", "factors").shown_default("all 1");
    }
    void parse(std::vector<std::string> args) {
        args.insert(args.begin(), "prog");
        std::vector<const char*> argv;
        for (const auto& a : args) argv.push_back(a.c_str());
        CLI::App app{"test", "evbench"};
        set.attach(app);
        std::ostringstream help;
        ASSERT_TRUE(set.parse(app, static_cast<int>(argv.size()), argv.data(), help));
    }
};

} // namespace

TEST(Options, ParsesEchoesAndTellsWhatWasGiven) {
    Declared d;
    d.parse({"--count", "7", "--wait", "2.5ms", "--colour", "green", "--loud", "--scale", "1,0.5"});
    EXPECT_EQ(d.count, 7u);
    EXPECT_EQ(d.wait, 2500_us);
    EXPECT_EQ(d.colour, Colour::green);
    EXPECT_TRUE(d.loud);
    EXPECT_EQ(d.scale, (std::vector<double>{1, 0.5}));
    EXPECT_TRUE(d.set.given("count"));
    EXPECT_FALSE(d.set.given("size"));
    auto echo = d.set.echo();
    EXPECT_EQ(echo["count"], 7);
    EXPECT_DOUBLE_EQ(echo["wait_s"].get<double>(), 2.5e-3); // durations echo seconds under NAME_s
    EXPECT_EQ(echo["size"], 1048576); // sizes echo bytes
    EXPECT_EQ(echo["colour"], "green"); // choices echo their name
    EXPECT_EQ(echo["loud"], true);
}

TEST(Options, BadValuesNameTheFlagAndWhatIsAllowed) {
    auto message = [](std::vector<std::string> args) {
        Declared d;
        try {
            d.parse(std::move(args));
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(message({"--count", "-1"}), "--count: '-1' is not a whole number from 0 to 4294967295");
    EXPECT_EQ(message({"--count", "5000000000"}), "--count: '5000000000' is not a whole number from 0 to 4294967295");
    EXPECT_EQ(message({"--colour", "blue"}), "--colour: unknown value 'blue' (choose red|green)");
    EXPECT_EQ(message({"--loud=perhaps"}), "--loud: 'perhaps' is not true or false");
    EXPECT_EQ(message({"--size", "big"}), "--size: 'big' is not a size");
    EXPECT_EQ(message({"--count"}), "--count needs a value (N)");
    EXPECT_EQ(message({"--count", "1", "--count", "2"}), "--count is given more than once");
    EXPECT_EQ(message({"--colour-blind"}), "unknown flag --colour-blind (evbench --help lists the flags)");
}

TEST(Options, MarkdownRowsComeFromTheDeclarations) {
    Declared d;
    const std::string table = d.set.markdown("test");
    EXPECT_NE(table.find("| `--count N` | `3` | how many |"), std::string::npos) << table;
    EXPECT_NE(table.find("| `--wait TIME` | `250ms` | how long |"), std::string::npos) << table;
    EXPECT_NE(table.find("| `--colour red\\|green` | `red` | which |"), std::string::npos) << table;
    EXPECT_NE(table.find("| `--scale a,b` | all 1 | factors |"), std::string::npos) << table;
    EXPECT_NE(d.set.markdown_blocks().find("<!-- flags: test -->\n| flag | default | meaning |"), std::string::npos);
}

TEST(Quantity, DurationsFormatInTheirLargestWholeUnit) {
    EXPECT_EQ(format_duration(5_s), "5s");
    EXPECT_EQ(format_duration(170_ns), "170ns");
    EXPECT_EQ(format_duration(2500_us), "2500us");
    EXPECT_EQ(format_duration(Picoseconds(0)), "0s");
    EXPECT_EQ(format_duration(Picoseconds(7)), "7ps");
}
