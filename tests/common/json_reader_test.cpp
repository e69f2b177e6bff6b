// ObjectReader: every value read with the file and JSON path it stands at, unknown keys refused,
// quantities with units, enumerations from their one name table.
#include "common/json_reader.hpp"
#include "common/enum_names.hpp"
#include "common/errors.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

using namespace dasim;

namespace {

enum class Colour { red, green };
constexpr EnumNames<Colour, 3> kColourNames{{{
    {Colour::red, "red"},
    {Colour::green, "green"},
    {Colour::green, "verdant", true},
}}};

// The InputError's message for reading `key` of `text` with `read`.
template <class Read>
std::string error_of(const std::string& text, Read read) {
  const auto json = nlohmann::json::parse(text);
  try {
    ObjectReader r(json, "f.json", "top");
    read(r);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(ObjectReader, ReadsValuesAndUnits) {
  const auto json =
      nlohmann::json::parse(R"({"n": 3, "bw": "25GBps", "lat": "1.5us", "size": "2MiB", "b": true})");
  ObjectReader r(json, "f.json", "");
  EXPECT_EQ(r.positive_integer("n"), 3);
  EXPECT_DOUBLE_EQ(r.bandwidth_Bps("bw"), 25e9);
  EXPECT_DOUBLE_EQ(r.time_s("lat"), 1.5e-6);
  EXPECT_DOUBLE_EQ(r.bytes("size"), 2.0 * 1024 * 1024);
  EXPECT_TRUE(r.boolean("b"));
  EXPECT_NO_THROW(r.finish());
}

TEST(ObjectReader, ErrorsNameTheFileAndTheJsonPath) {
  EXPECT_EQ(error_of(R"({"n": -1})", [](ObjectReader& r) { r.positive_integer("n"); }).substr(0, 14),
            "f.json: top.n:");
  EXPECT_NE(error_of(R"({})", [](ObjectReader& r) { r.string("name"); }).find("f.json: top.name:"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"x": [1, "two"]})",
                     [](ObjectReader& r) {
                       r.array("x", [&](const nlohmann::json& v, const std::string& path) {
                         json_integer(v, r.file(), path);
                       });
                     })
                .find("f.json: top.x[1]:"),
            std::string::npos);
}

TEST(ObjectReader, FinishRefusesKeysNobodyRead) {
  const std::string error = error_of(R"({"nodes": 2, "ndoes": 3})", [](ObjectReader& r) {
    r.integer("nodes");
    r.finish();
  });
  EXPECT_NE(error.find("top.ndoes: unknown key"), std::string::npos) << error;
  // "source", "note" and "comment" are allowed anywhere: presets cite their numbers.
  EXPECT_EQ(error_of(R"({"nodes": 2, "source": "x", "note": "y", "comment": "z"})",
                     [](ObjectReader& r) {
                       r.integer("nodes");
                       r.finish();
                     }),
            "(no error)");
}

TEST(ObjectReader, FinishSuggestsTheNearestKeyTheLoaderAskedFor) {
  // Every way a loader asks for a key makes it a suggestion: optional, required, has().
  EXPECT_EQ(error_of(R"({"iteration": 3})",
                     [](ObjectReader& r) {
                       r.optional_positive_integer("iterations");
                       r.finish();
                     }),
            "f.json: top.iteration: unknown key; did you mean \"iterations\"?");
  EXPECT_EQ(error_of(R"({"batch": 3, "nvlnik": {}})",
                     [](ObjectReader& r) {
                       r.integer("batch");
                       if (r.has("nvlink")) r.object("nvlink");
                       r.finish();
                     }),
            "f.json: top.nvlnik: unknown key; did you mean \"nvlink\"?");
  EXPECT_EQ(error_of(R"({"Warmup": 3})",
                     [](ObjectReader& r) {
                       r.optional_time_s("warmup");
                       r.finish();
                     }),
            "f.json: top.Warmup: unknown key; did you mean \"warmup\"?");
  EXPECT_EQ(error_of(R"({"sourse": "paper"})", [](ObjectReader& r) { r.finish(); }),
            "f.json: top.sourse: unknown key; did you mean \"source\"?");
}

TEST(ObjectReader, FinishSuggestsOnlyKeysAllowedAndAbsentInThisObject) {
  const std::string plain = "unknown key (check the spelling against docs/file-formats.md)";
  // Nothing close: the message points at the documentation instead.
  EXPECT_EQ(error_of(R"({"type": "sgd", "tau": 4})",
                     [](ObjectReader& r) {
                       r.string("type");
                       r.finish();
                     }),
            "f.json: top.tau: " + plain);
  // A key held by the object is not what its typo meant.
  EXPECT_EQ(error_of(R"({"bucket_cap": 1, "bucket_capp": 2})",
                     [](ObjectReader& r) {
                       r.optional_bytes("bucket_cap");
                       r.finish();
                     }),
            "f.json: top.bucket_capp: " + plain);
  // A key asked of another object (a sibling schedule) is not allowed in this one.
  const auto json = nlohmann::json::parse(R"({"a": {}, "b": {"bucket_capp": 2}})");
  ObjectReader top(json, "f.json", "");
  ObjectReader a = top.object("a");
  a.optional_bytes("bucket_cap");
  ObjectReader b = top.object("b");
  try {
    b.finish();
    ADD_FAILURE() << "b.bucket_capp accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "f.json: b.bucket_capp: " + plain);
  }
}

TEST(ObjectReader, EnumerationsAndChoicesSuggestTheNearestName) {
  EXPECT_EQ(error_of(R"({"a": "rde"})", [](ObjectReader& r) { r.enumeration("a", kColourNames); }),
            "f.json: top.a: expected one of red, green, got \"rde\"; did you mean \"red\"?");
  EXPECT_EQ(error_of(R"({"a": "GREEN"})", [](ObjectReader& r) { r.optional_enumeration("a", kColourNames); }),
            "f.json: top.a: expected one of red, green, got \"GREEN\"; did you mean \"green\"?");
  // An alias parses but is never suggested: "verdent" is near only "verdant".
  EXPECT_EQ(error_of(R"({"a": "verdent"})", [](ObjectReader& r) { r.enumeration("a", kColourNames); }),
            "f.json: top.a: expected one of red, green, got \"verdent\"");
  EXPECT_EQ(error_of(R"({"alg": "rign"})",
                     [](ObjectReader& r) {
                       r.choice("alg", {"ring", "tree"});
                     }),
            "f.json: top.alg: expected one of ring, tree, got \"rign\"; did you mean \"ring\"?");
  EXPECT_EQ(error_of(R"({"alg": "mesh"})",
                     [](ObjectReader& r) {
                       r.optional_choice("alg", {"ring", "tree"});
                     }),
            "f.json: top.alg: expected one of ring, tree, got \"mesh\"");
}

TEST(ObjectReader, EnumerationsParseNamesAndAliasesAndListOnlyTheNames) {
  const auto json = nlohmann::json::parse(R"({"a": "red", "b": "verdant"})");
  ObjectReader r(json, "f.json", "");
  EXPECT_EQ(r.enumeration("a", kColourNames), Colour::red);
  EXPECT_EQ(r.optional_enumeration("b", kColourNames), Colour::green);
  EXPECT_EQ(r.optional_enumeration("c", kColourNames), std::nullopt);
  EXPECT_EQ(error_of(R"({"a": "blue"})", [](ObjectReader& r) { r.enumeration("a", kColourNames); }),
            "f.json: top.a: expected one of red, green, got \"blue\"");
  EXPECT_EQ(kColourNames.name(Colour::green), "green");  // the alias is never printed
}

namespace {
std::string load_error(const std::string& text) {
  const std::string file = ::testing::TempDir() + "/dup.json";
  {
    std::ofstream out(file);
    out << text;
  }
  try {
    load_json_file(file);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(file.size());
  }
  return "(no error)";
}
}  // namespace

TEST(LoadJsonFile, RefusesADuplicateKeyWithItsPath) {
  // nlohmann keeps the last of two equal keys; a user who wrote both meant one of them.
  EXPECT_EQ(load_error(R"({"nodes": 64, "nodes": 2})"),
            ": nodes: duplicate key (each key may appear once in an object)");
  EXPECT_EQ(load_error(R"({"platforms": [{"file": "a"}, {"file": "b", "nodes": [1], "file": "c"}]})"),
            ": platforms[1].file: duplicate key (each key may appear once in an object)");
  EXPECT_EQ(load_error(R"({"a": {"b": [[1, {"x": 1, "x": 2}]]}})"),
            ": a.b[0][1].x: duplicate key (each key may appear once in an object)");
  // The same key in sibling objects, or nested under itself, is fine.
  EXPECT_EQ(load_error(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})"), "(no error)");
}

TEST(ObjectReader, QuantitiesOutsideWhatTheSimulatorRepresentsAreRefused) {
  // Each accepted extreme crashed or silently mis-simulated: a 1e-308 B/s NIC and a 1e308 s
  // latency deadlocked SimGrid, 1e-6 B/s lost the compute time to the solver's precision.
  auto bandwidth = [](const std::string& v) {
    return error_of(fmt::format(R"({{"bw": {}}})", v), [](ObjectReader& r) { r.bandwidth_Bps("bw"); });
  };
  EXPECT_EQ(bandwidth("1e-308"),
            "f.json: top.bw: expected a bandwidth of 1 kB/s to 1 PB/s (1e3..1e15 B/s), got 1e-308");
  EXPECT_EQ(bandwidth("1e-6"),
            "f.json: top.bw: expected a bandwidth of 1 kB/s to 1 PB/s (1e3..1e15 B/s), got 1e-06");
  EXPECT_EQ(bandwidth("\"2000TBps\""),
            "f.json: top.bw: expected a bandwidth of 1 kB/s to 1 PB/s (1e3..1e15 B/s), got \"2000TBps\"");
  EXPECT_EQ(bandwidth("1000"), "(no error)");  // the edges are in range
  EXPECT_EQ(bandwidth("1e15"), "(no error)");
  auto time = [](const std::string& v) {
    return error_of(fmt::format(R"({{"t": {}}})", v), [](ObjectReader& r) { r.time_s("t"); });
  };
  EXPECT_EQ(time("\"1e308s\""), "f.json: top.t: expected a time of 0 to 1 day (86400 s), got \"1e308s\"");
  EXPECT_EQ(time("86401"), "f.json: top.t: expected a time of 0 to 1 day (86400 s), got 86401");
  EXPECT_EQ(time("0"), "(no error)");
  EXPECT_EQ(time("1e-308"), "(no error)");  // a tiny latency is a zero latency, not a crash
  auto rate = [](const std::string& v) {
    return error_of(fmt::format(R"({{"f": {}}})", v), [](ObjectReader& r) { r.flops("f"); });
  };
  EXPECT_EQ(rate("1e-308"),
            "f.json: top.f: expected a rate of 1 MFLOP/s to 1 EFLOP/s (1e6..1e18 FLOP/s), got 1e-308");
  EXPECT_EQ(rate("1e19"),
            "f.json: top.f: expected a rate of 1 MFLOP/s to 1 EFLOP/s (1e6..1e18 FLOP/s), got 1e+19");
  auto size = [](const std::string& v) {
    return error_of(fmt::format(R"({{"s": {}}})", v), [](ObjectReader& r) { r.bytes("s"); });
  };
  EXPECT_EQ(size("0.5"), "f.json: top.s: expected a size of 1 byte to 2^50 bytes (1 PiB), got 0.5");
  EXPECT_EQ(size("\"2048TiB\""),
            "f.json: top.s: expected a size of 1 byte to 2^50 bytes (1 PiB), got \"2048TiB\"");
}
