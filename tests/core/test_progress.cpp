// The progress reporter, driven by an injected clock and read through an injected sink.
#include <gtest/gtest.h>

#include <string>

#include "core/progress.h"

using sift::ProgressOptions;
using sift::ProgressReporter;
using sift::ProgressStyle;

namespace {

struct Harness {
  double now = 100.0;  // any origin: rates and ETAs use differences only
  std::string written;
  ProgressReporter make(ProgressStyle style, std::optional<int64_t> total) {
    ProgressOptions options;
    options.style = style;
    options.redraw_every_seconds = 0.5;
    options.line_every_seconds = 5.0;
    return ProgressReporter("label", "profiles", total, options,
                            [this](std::string_view text) { written += text; }, [this] { return now; });
  }
};

}  // namespace

TEST(Progress, StatusLineHasCountPercentRateAndEta) {
  Harness h;
  ProgressReporter progress = h.make(ProgressStyle::lines, 400);
  h.now += 40.0;
  progress.update(100, "2000 pairs");
  // rate = 100 / 40 s = 2.5/s; ETA = 300 / 2.5 = 120 s.
  EXPECT_EQ(progress.status_line(), "label: 100/400 profiles (25%), 2.5 profiles/s, ETA 2:00 | 2000 pairs");
}

TEST(Progress, UnknownTotalHasNoPercentOrEta) {
  Harness h;
  ProgressReporter progress = h.make(ProgressStyle::lines, std::nullopt);
  h.now += 4.0;
  progress.update(10);
  EXPECT_EQ(progress.status_line(), "label: 10 profiles, 2.5 profiles/s");
}

TEST(Progress, NothingDoneYetHasNoEta) {
  Harness h;
  ProgressReporter progress = h.make(ProgressStyle::lines, 10);
  h.now += 3.0;
  progress.update(0);
  EXPECT_EQ(progress.status_line(), "label: 0/10 profiles (0%), 0.0 profiles/s");
}

TEST(Progress, LinesStyleWritesAPlainLineEveryInterval) {
  Harness h;
  ProgressReporter progress = h.make(ProgressStyle::lines, 100);
  h.now += 1.0;
  progress.update(1);
  EXPECT_EQ(h.written, "") << "nothing before the first interval";
  h.now += 4.0;
  progress.update(10);
  EXPECT_EQ(h.written, "label: 10/100 profiles (10%), 2.0 profiles/s, ETA 0:45\n");
  h.now += 2.0;
  progress.update(12);
  EXPECT_EQ(h.written.find('\n'), h.written.size() - 1) << "second line not yet due";
  h.now += 3.0;
  progress.update(20);
  EXPECT_EQ(std::count(h.written.begin(), h.written.end(), '\n'), 2);
  EXPECT_EQ(h.written.find('\r'), std::string::npos) << "a log file gets no carriage returns";
}

TEST(Progress, RedrawStyleRewritesOneLineAndClearsItForMessagesAndTheSummary) {
  Harness h;
  ProgressReporter progress = h.make(ProgressStyle::redraw, 4);
  h.now += 1.0;
  progress.update(1);
  EXPECT_EQ(h.written, "\rlabel: 1/4 profiles (25%), 1.0 profiles/s, ETA 0:03\033[K");
  h.written.clear();
  h.now += 0.1;
  progress.update(2);
  EXPECT_EQ(h.written, "") << "redraws are throttled";
  progress.message("profiles.jsonl:3: no \"text\"");
  EXPECT_EQ(h.written, "\r\033[Kprofiles.jsonl:3: no \"text\"\n\rlabel: 2/4 profiles (50%), 1.8 profiles/s, ETA 0:01\033[K");
  h.written.clear();
  progress.finish("4 profiles in 0:02");
  EXPECT_EQ(h.written, "\r\033[Klabel: 4 profiles in 0:02\n");
  h.written.clear();
  progress.update(4);
  progress.finish("again");
  EXPECT_EQ(h.written, "") << "nothing after finish";
}

TEST(Progress, AnUnfinishedRedrawnLineIsEndedWhenTheReporterGoes) {
  Harness h;
  {
    ProgressReporter progress = h.make(ProgressStyle::redraw, 4);
    h.now += 1.0;
    progress.update(1);
  }
  EXPECT_EQ(h.written.back(), '\n') << "an error printed next must not share the status line";
  Harness finished;
  {
    ProgressReporter progress = finished.make(ProgressStyle::redraw, 4);
    finished.now += 1.0;
    progress.update(1);
    progress.finish("done");
  }
  EXPECT_TRUE(finished.written.ends_with("\r\033[Klabel: done\n")) << "no extra newline after finish()";
}

TEST(Progress, QuietWritesMessagesOnly) {
  Harness h;
  ProgressReporter progress = h.make(ProgressStyle::quiet, 10);
  for (int i = 1; i <= 10; ++i) {
    h.now += 10.0;
    progress.update(i);
  }
  progress.message("a warning");
  progress.finish("done");
  EXPECT_EQ(h.written, "a warning\n");
}

TEST(Progress, DurationsReadAsClockTime) {
  EXPECT_EQ(sift::format_duration(0), "0:00");
  EXPECT_EQ(sift::format_duration(59.6), "1:00");
  EXPECT_EQ(sift::format_duration(3599), "59:59");
  EXPECT_EQ(sift::format_duration(3600 * 26 + 61), "26:01:01");
  EXPECT_EQ(sift::format_duration(-5), "0:00");
  EXPECT_EQ(sift::format_duration(std::numeric_limits<double>::infinity()), "0:00");
}
