#pragma once
// The words profiles are made of, apart from qualification names: companies, seniority
// levels, sentence templates, and which catalog categories a role draws its skills from.
// Every template is checked by the tests never to state a qualification by itself, so the
// only qualifications a profile states are the ones the generator put there.
#include <string_view>
#include <vector>

namespace sift::synth::vocab {

// A role is a qualification with job titles ("Data Engineering": "Data Engineer"); its
// category decides where the member's other skills and certifications come from.
struct Neighbourhood {
  std::string_view role_category;
  std::vector<std::string_view> skill_categories;          // first = the role's own
  std::vector<std::string_view> certification_categories;  // may be empty
};
const std::vector<Neighbourhood>& neighbourhoods();

// Extras any member may have, whatever the role.
inline constexpr std::string_view kLanguageCategory = "Spoken languages";
inline constexpr std::string_view kDomainCategory = "Industry domains";
inline constexpr std::string_view kSoftSkillCategory = "Communication and leadership";

const std::vector<std::string_view>& companies();
const std::vector<std::string_view>& seniorities();    // "Senior ", "" (prefix, with space)
const std::vector<std::string_view>& proficiencies();  // "native", "fluent", ...
const std::vector<std::string_view>& cities();
const std::vector<std::string_view>& degrees();
const std::vector<std::string_view>& universities();

// Sentences that state no qualification: achievements in experience entries, and closing
// remarks. They make profiles read like profiles and give the labeler text to ignore.
const std::vector<std::string_view>& achievements();
const std::vector<std::string_view>& closing_sentences();

// Templates: "{}" is replaced by a list of qualification surfaces ("A, B and C") or, in
// distractor templates, by one surface; "{title}", "{company}", "{years}" by those.
const std::vector<std::string_view>& headline_templates();   // use {title}, {company}, {}
const std::vector<std::string_view>& opening_templates();    // use {title}, {years}
const std::vector<std::string_view>& skill_sentences();      // about/experience, {}
const std::vector<std::string_view>& skill_list_labels();    // "Skills: "
const std::vector<std::string_view>& certification_sentences();  // {}
const std::vector<std::string_view>& language_sentences();       // {}
const std::vector<std::string_view>& domain_sentences();         // {}

// Distractors: mention a qualification the member does NOT have.
const std::vector<std::string_view>& negated_skill_templates();
const std::vector<std::string_view>& negated_certification_templates();
const std::vector<std::string_view>& negated_language_templates();
const std::vector<std::string_view>& other_person_skill_templates();
const std::vector<std::string_view>& other_person_certification_templates();
const std::vector<std::string_view>& other_person_language_templates();

}  // namespace sift::synth::vocab
