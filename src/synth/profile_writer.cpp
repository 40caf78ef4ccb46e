// ProfileGenerator: plans a member (profile_plan.cpp), then writes the profile text in one of
// three styles while recording every piece of evidence it writes.
#include <algorithm>

#include "synth/profile.h"
#include "synth/profile_plan.h"
#include "synth/profile_vocab.h"
#include "synth/rng.h"

namespace sift::synth {

namespace {

// Share of mentions written with an alias instead of the canonical name. Aliases must be
// learned by heart by a labeler (its candidate text is the canonical name), so they are a
// minority, as in real profiles.
constexpr double kAliasRate = 0.2;

void replace_all(std::string& text, std::string_view pattern, std::string_view value) {
  for (size_t at = text.find(pattern); at != std::string::npos; at = text.find(pattern, at + value.size()))
    text.replace(at, pattern.size(), value);
}

// "A", "A and B", "A, B and C".
std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += (i + 1 == words.size()) ? " and " : ", ";
    out += words[i];
  }
  return out;
}

std::string join_with(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += separator;
    out += words[i];
  }
  return out;
}

// Writes mentions and records them as evidence.
class EvidenceWriter {
 public:
  EvidenceWriter(const Catalog& catalog, Rng& rng) : catalog_(catalog), rng_(rng) {}

  // A positive mention by canonical name or alias.
  std::string mention(int q) {
    const Qualification& qual = catalog_[q];
    if (!qual.aliases.empty() && rng_.chance(kAliasRate)) return record(q, EvidenceKind::alias, rng_.pick(qual.aliases));
    return record(q, EvidenceKind::direct, qual.name);
  }
  std::vector<std::string> mentions(const std::vector<int>& qs) {
    std::vector<std::string> out;
    for (int q : qs) out.push_back(mention(q));
    return out;
  }
  std::string title(int q) { return record(q, EvidenceKind::title, rng_.pick(catalog_[q].titles)); }

  // A sentence that names q without giving it to the member.
  std::string distractor(int q, EvidenceKind kind) {
    const Qualification& qual = catalog_[q];
    bool negated = kind == EvidenceKind::negated;
    const std::vector<std::string_view>& templates =
        qual.kind == QualificationKind::certification
            ? (negated ? vocab::negated_certification_templates() : vocab::other_person_certification_templates())
        : qual.kind == QualificationKind::language
            ? (negated ? vocab::negated_language_templates() : vocab::other_person_language_templates())
            : (negated ? vocab::negated_skill_templates() : vocab::other_person_skill_templates());
    std::string sentence(rng_.pick(templates));
    const std::string& surface =
        !qual.aliases.empty() && rng_.chance(kAliasRate) ? rng_.pick(qual.aliases) : qual.name;
    replace_all(sentence, "{}", record(q, kind, surface));
    return sentence;
  }

  std::vector<Evidence>& evidence() { return evidence_; }

 private:
  const std::string& record(int q, EvidenceKind kind, const std::string& surface) {
    evidence_.push_back({q, kind, surface, -1});
    return surface;
  }
  const Catalog& catalog_;
  Rng& rng_;
  std::vector<Evidence> evidence_;
};

// The text of one profile, built line by line.
class ProfileComposer {
 public:
  ProfileComposer(const Catalog& catalog, const ProfilePlan& plan, Rng& rng)
      : plan_(plan), rng_(rng), writer_(catalog, rng), pending_skills_(plan.skills) {
    for (int q : plan.negated) distractors_.push_back(writer_.distractor(q, EvidenceKind::negated));
    for (int q : plan.other_person) distractors_.push_back(writer_.distractor(q, EvidenceKind::other_person));
    rng_.shuffle(distractors_);
    current_year_start_ = rng_.between(2014, 2023);
    years_ = std::max(2, 2024 - current_year_start_ + rng_.between(0, 8));
  }

  std::string write(ProfileStyle style) {
    switch (style) {
      case ProfileStyle::resume: write_resume(); break;
      case ProfileStyle::narrative: write_narrative(); break;
      case ProfileStyle::compact: write_compact(); break;
    }
    return join_with(lines_, "\n");
  }
  std::vector<Evidence>& evidence() { return writer_.evidence(); }

 private:
  // Takes up to n skills not written yet.
  std::vector<int> take_skills(size_t n) {
    n = std::min(n, pending_skills_.size());
    std::vector<int> taken(pending_skills_.begin(), pending_skills_.begin() + std::ptrdiff_t(n));
    pending_skills_.erase(pending_skills_.begin(), pending_skills_.begin() + std::ptrdiff_t(n));
    return taken;
  }

  std::string fill(std::string_view pattern, const std::string& title, const std::string& list) {
    std::string text(pattern);
    replace_all(text, "{title}", title);
    replace_all(text, "{company}", rng_.pick(vocab::companies()));
    replace_all(text, "{years}", std::to_string(years_));
    replace_all(text, "{}", list);
    return text;
  }

  std::string role_title(int role) { return std::string(rng_.pick(vocab::seniorities())) + writer_.title(role); }

  // "Senior Data Engineer at Acme | Apache Spark · dbt"
  std::string headline() {
    std::string_view pattern = rng_.pick(vocab::headline_templates());
    std::vector<int> featured;
    if (pattern.find("{}") != std::string_view::npos) featured = take_skills(size_t(rng_.between(1, 3)));
    if (featured.empty()) pattern = "{title} at {company}";
    return fill(pattern, role_title(plan_.roles[0]), join_with(writer_.mentions(featured), " · "));
  }

  std::string opening() { return fill(rng_.pick(vocab::opening_templates()), writer_.title(plan_.roles[0]), ""); }

  std::string skill_sentence(size_t n) {
    std::vector<int> skills = take_skills(n);
    if (skills.empty()) return "";
    return fill(rng_.pick(vocab::skill_sentences()), "", join_words(writer_.mentions(skills)));
  }

  // "2019–present Senior Data Engineer at Acme: Worked daily with Apache Spark and dbt."
  std::vector<std::string> experience_entries() {
    std::vector<std::string> entries;
    int end_year = 0;
    int start_year = current_year_start_;
    for (size_t i = 0; i < plan_.roles.size(); ++i) {
      std::string dates = std::to_string(start_year) + "–" + (i == 0 ? std::string("present") : std::to_string(end_year));
      std::string entry = dates + " " + fill("{title} at {company}", role_title(plan_.roles[i]), "");
      std::string sentence = skill_sentence(size_t(rng_.between(1, 2)));
      if (!sentence.empty()) entry += ": " + sentence;
      if (rng_.chance(0.75)) {
        entry += sentence.empty() ? ": " : " ";
        entry += rng_.pick(vocab::achievements());
      }
      entries.push_back(entry);
      end_year = start_year;
      start_year -= rng_.between(2, 6);
    }
    return entries;
  }

  std::string skills_list() {
    std::vector<int> rest = take_skills(pending_skills_.size());
    if (rest.empty()) return "";
    return std::string(rng_.pick(vocab::skill_list_labels())) + join_with(writer_.mentions(rest), ", ");
  }

  std::string certifications_list() {
    if (plan_.certifications.empty()) return "";
    std::vector<std::string> items;
    for (int q : plan_.certifications) {
      std::string item = writer_.mention(q);
      if (rng_.chance(0.5)) item += " (" + std::to_string(rng_.between(2012, 2024)) + ")";
      items.push_back(item);
    }
    return "Certifications: " + join_with(items, ", ");
  }

  std::string certifications_sentence() {
    if (plan_.certifications.empty()) return "";
    return fill(rng_.pick(vocab::certification_sentences()), "", join_words(writer_.mentions(plan_.certifications)));
  }

  std::string languages_list() {
    std::vector<std::string> items;
    for (int q : plan_.languages)
      items.push_back(writer_.mention(q) + " (" + std::string(rng_.pick(vocab::proficiencies())) + ")");
    return "Languages: " + join_with(items, ", ");
  }

  std::string languages_sentence() {
    return fill(rng_.pick(vocab::language_sentences()), "", join_words(writer_.mentions(plan_.languages)));
  }

  std::string domains_sentence() {
    if (plan_.domains.empty()) return "";
    return fill(rng_.pick(vocab::domain_sentences()), "", join_words(writer_.mentions(plan_.domains)));
  }

  std::string closing(double probability) {
    return rng_.chance(probability) ? std::string(rng_.pick(vocab::closing_sentences())) : "";
  }

  std::string location(double probability) {
    return rng_.chance(probability) ? "Based in " + std::string(rng_.pick(vocab::cities())) + "." : "";
  }

  std::string education(double probability) {
    if (!rng_.chance(probability)) return "";
    return "Education: " + std::string(rng_.pick(vocab::degrees())) + ", " + std::string(rng_.pick(vocab::universities())) +
           " (" + std::to_string(current_year_start_ - rng_.between(3, 12)) + ")";
  }

  std::string distractor_text() { return join_with(distractors_, " "); }

  void add_line(std::string line) {
    if (!line.empty()) lines_.push_back(std::move(line));
  }

  void write_resume() {
    add_line(headline());
    // Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    std::vector<std::string> about{opening(), location(0.5), domains_sentence(), distractor_text(), closing(0.7)};
    std::erase(about, std::string());
    std::string line = "About: ";
    line += join_with(about, " ");
    add_line(std::move(line));
    add_line("Experience:");
    for (std::string& entry : experience_entries()) add_line(std::move(entry));
    add_line(skills_list());
    add_line(certifications_list());
    add_line(languages_list());
    add_line(education(0.6));
  }

  void write_narrative() {
    add_line(headline());
    std::vector<std::string> about{opening()};
    while (!pending_skills_.empty()) about.push_back(skill_sentence(size_t(rng_.between(1, 3))));
    about.push_back(certifications_sentence());
    about.push_back(domains_sentence());
    about.push_back(distractor_text());
    about.push_back(languages_sentence());
    about.push_back(location(0.4));
    about.push_back(closing(0.7));
    std::erase(about, std::string());
    add_line(join_with(about, " "));
    for (std::string& entry : experience_entries()) add_line(std::move(entry));
    add_line(education(0.5));
  }

  void write_compact() {
    add_line(headline());
    add_line(opening());
    for (size_t i = 1; i < plan_.roles.size(); ++i)
      add_line("Previously " + fill("{title} at {company}.", role_title(plan_.roles[i]), "") + " " +
               std::string(rng_.pick(vocab::achievements())));
    add_line(skills_list());
    add_line(certifications_list());
    add_line(domains_sentence());
    add_line(languages_list());
    add_line(education(0.7));
    std::vector<std::string> notes{distractor_text(), location(0.6), closing(1.0)};
    std::erase(notes, std::string());
    if (!notes.empty()) add_line("Notes: " + join_with(notes, " "));
  }

  const ProfilePlan& plan_;
  Rng& rng_;
  EvidenceWriter writer_;
  std::vector<int> pending_skills_;
  std::vector<std::string> distractors_;
  std::vector<std::string> lines_;
  int current_year_start_ = 2020;
  int years_ = 5;
};

std::vector<int> sorted_unique(std::vector<int> items) {
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  return items;
}

}  // namespace

std::string_view evidence_kind_name(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::direct: return "direct";
    case EvidenceKind::alias: return "alias";
    case EvidenceKind::title: return "title";
    case EvidenceKind::implied: return "implied";
    case EvidenceKind::negated: return "negated";
    case EvidenceKind::other_person: return "other_person";
    case EvidenceKind::near_miss: return "near_miss";
  }
  return "direct";
}

bool supports_truth(EvidenceKind kind) {
  return kind == EvidenceKind::direct || kind == EvidenceKind::alias || kind == EvidenceKind::title ||
         kind == EvidenceKind::implied;
}

std::string_view style_name(ProfileStyle style) {
  switch (style) {
    case ProfileStyle::resume: return "resume";
    case ProfileStyle::narrative: return "narrative";
    case ProfileStyle::compact: return "compact";
  }
  return "resume";
}

bool Profile::is_true(int qualification) const {
  return std::binary_search(truth.begin(), truth.end(), qualification);
}

ProfileGenerator::ProfileGenerator(const Catalog& catalog) : catalog_(catalog), planner_(catalog) {}

Profile ProfileGenerator::generate(uint64_t seed) const {
  Rng rng(seed);
  ProfilePlan plan = planner_.plan(rng);
  Profile profile;
  double u = rng.uniform();
  profile.style = u < 0.4 ? ProfileStyle::resume : (u < 0.75 ? ProfileStyle::narrative : ProfileStyle::compact);

  ProfileComposer composer(catalog_, plan, rng);
  profile.text = composer.write(profile.style);
  profile.evidence = std::move(composer.evidence());

  std::vector<int> held;
  for (const Evidence& e : profile.evidence)
    if (supports_truth(e.kind)) held.push_back(e.qualification);
  profile.held = sorted_unique(held);
  profile.truth = catalog_.closure(profile.held);

  for (int q : profile.truth) {
    if (std::binary_search(profile.held.begin(), profile.held.end(), q)) continue;
    auto source = std::find_if(profile.held.begin(), profile.held.end(), [&](int h) { return catalog_.implies(h, q); });
    profile.evidence.push_back({q, EvidenceKind::implied, "", *source});
  }
  for (const NearMissPair& pair : plan.near_misses) {
    auto written = std::find_if(profile.evidence.begin(), profile.evidence.end(),
                                [&](const Evidence& e) { return e.qualification == pair.held && supports_truth(e.kind); });
    profile.evidence.push_back({pair.absent, EvidenceKind::near_miss, written->surface, pair.held});
  }
  return profile;
}

}  // namespace sift::synth
