// label_one MODEL_DIR QUERY ITEM...: scores the items against the query with sift's public
// API and prints one line per item: "<score with 17 digits> <label>".
#include <sift/sift.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: label_one MODEL_DIR QUERY ITEM...\n");
    return 2;
  }
  try {
    const sift::Labeler labeler = sift::Labeler::load(argv[1]);
    const std::vector<std::string> items(argv + 3, argv + argc);
    const sift::RowResult result = labeler.score(argv[2], items);
    for (size_t i = 0; i < items.size(); ++i)
      std::printf("%.17g %s\n", *result.scores[i], *result.labels[i] ? "true" : "false");
    std::printf("version %s threshold %.17g\n", labeler.version().c_str(), labeler.threshold());
  } catch (const sift::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
