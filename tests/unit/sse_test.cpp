// Unit tests for server-sent events (util/sse.hpp): the writer the server
// uses and the parser the fleet client uses.

#include "util/sse.hpp"

#include <gtest/gtest.h>

namespace mudjack::util {
namespace {

using nlohmann::json;

TEST(Sse, EventsAreOneDataLineOfCompactJson) {
  EXPECT_EQ(sse_event(7, "outcome", json{{"a", "x\ny"}, {"b", 1}}),
            "id: 7\nevent: outcome\ndata: {\"a\":\"x\\ny\",\"b\":1}\n\n");
  EXPECT_EQ(sse_comment("keep-alive"), ": keep-alive\n\n");
}

TEST(Sse, ParserHandlesChunksLineEndsCommentsAndMultiLineData) {
  std::string stream = sse_event(1, "state", json{{"s", 1}}) + ": keep-alive\n\n" +
                       "id: 2\r\nevent: end\r\ndata: a\r\ndata: b\r\n\r\n" +
                       "data: no id\rfield-without-colon\r\r" + "id: 9\nevent: cut";
  SseParser parser;
  std::vector<SseEvent> events;
  for (char c : stream) {  // one byte at a time: the worst chunking
    auto got = parser.feed(std::string_view(&c, 1));
    events.insert(events.end(), got.begin(), got.end());
  }
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].id, "1");
  EXPECT_EQ(events[0].name, "state");
  EXPECT_EQ(events[0].data, R"({"s":1})");
  EXPECT_EQ(events[1].id, "2");
  EXPECT_EQ(events[1].name, "end");
  EXPECT_EQ(events[1].data, "a\nb");
  EXPECT_EQ(events[2].id, "");
  EXPECT_EQ(events[2].name, "message");
  EXPECT_EQ(events[2].data, "no id");
  EXPECT_GT(parser.pending(), 0u) << "a truncated event is held back, not delivered";
}

}  // namespace
}  // namespace mudjack::util
