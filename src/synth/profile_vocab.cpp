#include "synth/profile_vocab.h"

namespace sift::synth::vocab {

const std::vector<Neighbourhood>& neighbourhoods() {
  static const std::vector<Neighbourhood> table = {
      {"Mobile development",
       {"Mobile development", "Programming languages", "Software practices", "Web development", "Cloud platforms"},
       {"Cloud certifications"}},
      {"Databases",
       {"Databases", "Data engineering", "Programming languages", "DevOps and infrastructure"},
       {"Cloud certifications", "IT and security certifications"}},
      {"Data engineering",
       {"Data engineering", "Databases", "Programming languages", "Cloud platforms", "Data analysis and BI"},
       {"Cloud certifications"}},
      {"Machine learning and AI",
       {"Machine learning and AI", "Programming languages", "Data engineering", "Data analysis and BI",
        "Cloud platforms"},
       {"Cloud certifications"}},
      {"Cloud platforms",
       {"Cloud platforms", "DevOps and infrastructure", "Security", "Programming languages"},
       {"Cloud certifications", "IT and security certifications"}},
      {"DevOps and infrastructure",
       {"DevOps and infrastructure", "Cloud platforms", "Networking", "Programming languages", "Software practices"},
       {"Cloud certifications", "IT and security certifications"}},
      {"Security",
       {"Security", "Networking", "DevOps and infrastructure", "Cloud platforms"},
       {"IT and security certifications", "Cloud certifications"}},
      {"Networking",
       {"Networking", "Security", "DevOps and infrastructure"},
       {"IT and security certifications"}},
      {"Software practices",
       {"Software practices", "Programming languages", "Web development", "Databases", "DevOps and infrastructure",
        "Cloud platforms"},
       {"Cloud certifications", "IT and security certifications", "Management certifications"}},
      {"Data analysis and BI",
       {"Data analysis and BI", "Databases", "Office and productivity", "Business software",
        "Machine learning and AI"},
       {"IT and security certifications"}},
      {"Design and creative",
       {"Design and creative", "Web development", "Office and productivity", "Marketing and sales"},
       {"Marketing certifications"}},
      {"Project and product management",
       {"Project and product management", "Software practices", "Office and productivity", "Business software",
        "Data analysis and BI"},
       {"Management certifications"}},
      {"Marketing and sales",
       {"Marketing and sales", "Business software", "Office and productivity", "Design and creative",
        "Data analysis and BI"},
       {"Marketing certifications"}},
      {"Finance and accounting",
       {"Finance and accounting", "Business software", "Office and productivity", "Data analysis and BI"},
       {"Finance certifications"}},
      {"Healthcare and clinical", {"Healthcare and clinical", "Office and productivity"}, {"Healthcare certifications"}},
      {"Engineering",
       {"Engineering", "Programming languages", "Office and productivity", "Project and product management"},
       {"Management certifications"}},
      {"Human resources",
       {"Human resources", "Office and productivity", "Business software", "Legal and compliance"},
       {"Management certifications"}},
      {"Education",
       {"Education", "Office and productivity", "Design and creative", "Translation and communication"},
       {"Management certifications"}},
      {"Legal and compliance",
       {"Legal and compliance", "Finance and accounting", "Office and productivity"},
       {"Finance certifications"}},
      {"Translation and communication",
       {"Translation and communication", "Office and productivity", "Education", "Legal and compliance"},
       {}},
      {"Communication and leadership",
       {"Communication and leadership", "Translation and communication", "Office and productivity",
        "Software practices"},
       {}},
      {"Industry domains",
       {"Industry domains", "Business software", "Office and productivity", "Project and product management",
        "Finance and accounting"},
       {"Management certifications"}},
  };
  return table;
}

const std::vector<std::string_view>& companies() {
  static const std::vector<std::string_view> list = {
      "Acme",          "Globex",           "Initech",          "Hooli",          "Vandelay Industries",
      "Pied Piper",    "Wonka Industries", "Dunder Mifflin",   "Aperture Labs",  "Massive Dynamic",
      "Oscorp",        "Tyrell Corporation", "Soylent Corp",   "Nakatomi Trading", "Virtucon",
      "Blue Sun",      "Weyland Yutani",   "Cyberdyne",        "Stark Industries", "Wayne Enterprises",
      "Gringotts Bank", "Monarch Labs",    "Bluth Company",    "Sterling Cooper", "Prestige Worldwide",
      "Northwind Traders", "Contoso",      "Fabrikam",         "Tailspin Toys",  "Wingtip Partners"};
  return list;
}

const std::vector<std::string_view>& seniorities() {
  static const std::vector<std::string_view> list = {"", "", "Senior ", "Junior ", "Lead ", "Principal ", "Staff "};
  return list;
}

const std::vector<std::string_view>& proficiencies() {
  static const std::vector<std::string_view> list = {
      "native", "fluent", "professional working proficiency", "conversational", "bilingual"};
  return list;
}

const std::vector<std::string_view>& cities() {
  static const std::vector<std::string_view> list = {
      "Berlin", "Lisbon", "Toronto", "Austin", "Nairobi", "Singapore", "Manchester", "Denver", "Madrid", "Lagos",
      "Melbourne", "Warsaw", "Dublin", "Seoul", "Chicago", "Bangalore", "Cape Town", "Montreal", "Oslo", "Lima"};
  return list;
}

const std::vector<std::string_view>& degrees() {
  static const std::vector<std::string_view> list = {"Bachelor's degree", "Master's degree", "BSc", "MSc", "BA",
                                                     "MA", "PhD", "Associate degree", "Diploma"};
  return list;
}

const std::vector<std::string_view>& universities() {
  static const std::vector<std::string_view> list = {
      "Northfield University", "University of Eastbrook", "Lakeside College", "Westmoor University",
      "Riverside Polytechnic", "Kingsbridge University", "Southgate College", "Hollis University"};
  return list;
}

const std::vector<std::string_view>& achievements() {
  static const std::vector<std::string_view> list = {
      "Cut turnaround time by a third.",
      "Grew the group from three to nine people.",
      "Delivered on schedule for four straight quarters.",
      "Recognised with an internal excellence award.",
      "Worked closely with customers and internal partners.",
      "Took over a struggling initiative and got it back on track.",
      "Wrote the internal guides that new hires still use.",
      "Reduced costs noticeably without adding headcount.",
  };
  return list;
}

const std::vector<std::string_view>& closing_sentences() {
  static const std::vector<std::string_view> list = {
      "Open to new opportunities.",
      "I care about clear documentation and calm, steady delivery.",
      "Outside work I enjoy hiking, chess and cooking.",
      "Always happy to connect with people from the field.",
      "I like small teams that own their results end to end.",
      "Currently open to remote roles.",
      "Volunteer at a local food bank on weekends.",
  };
  return list;
}

const std::vector<std::string_view>& headline_templates() {
  static const std::vector<std::string_view> list = {
      "{title} at {company}",
      "{title} | {}",
      "{title} at {company} | {}",
      "{title} — {}",
  };
  return list;
}

const std::vector<std::string_view>& opening_templates() {
  static const std::vector<std::string_view> list = {
      "{title} with {years} years of experience.",
      "I have worked as {title} for {years} years.",
      "{years} years in the field, currently {title}.",
  };
  return list;
}

const std::vector<std::string_view>& skill_sentences() {
  static const std::vector<std::string_view> list = {
      "Most of my recent work uses {}.",
      "Day to day I rely on {}.",
      "I am comfortable with {}.",
      "Hands-on experience with {}.",
      "Worked daily with {}.",
      "Delivered client projects using {}.",
      "Used {} every week.",
      "Introduced {} to the group.",
  };
  return list;
}

const std::vector<std::string_view>& skill_list_labels() {
  static const std::vector<std::string_view> list = {"Skills: ", "Top skills: ", "Core skills: ", "Toolbox: "};
  return list;
}

const std::vector<std::string_view>& certification_sentences() {
  static const std::vector<std::string_view> list = {
      "I hold the {}.",
      "Earned the {} last year.",
      "Certification: {}.",
  };
  return list;
}

const std::vector<std::string_view>& language_sentences() {
  static const std::vector<std::string_view> list = {"I speak {}.", "Fluent in {}."};
  return list;
}

const std::vector<std::string_view>& domain_sentences() {
  static const std::vector<std::string_view> list = {"Background in {}.", "Industry experience: {}."};
  return list;
}

const std::vector<std::string_view>& negated_skill_templates() {
  static const std::vector<std::string_view> list = {
      "No experience with {} yet.",
      "I am not yet familiar with {}.",
      "I have never used {}.",
      "I have not worked with {} so far.",
  };
  return list;
}

const std::vector<std::string_view>& negated_certification_templates() {
  static const std::vector<std::string_view> list = {
      "I have not taken the {} exam yet.",
      "I do not hold the {}.",
  };
  return list;
}

const std::vector<std::string_view>& negated_language_templates() {
  static const std::vector<std::string_view> list = {"I do not speak {}.", "No knowledge of {} yet."};
  return list;
}

const std::vector<std::string_view>& other_person_skill_templates() {
  static const std::vector<std::string_view> list = {
      "My manager led the {} migration.",
      "I worked alongside the {} team.",
      "A colleague handled everything related to {}.",
      "Our partner agency took care of {} for us.",
  };
  return list;
}

const std::vector<std::string_view>& other_person_certification_templates() {
  static const std::vector<std::string_view> list = {
      "My manager holds the {}.",
      "Several colleagues hold the {}.",
  };
  return list;
}

const std::vector<std::string_view>& other_person_language_templates() {
  static const std::vector<std::string_view> list = {
      "A colleague handled all {} correspondence.",
      "My manager speaks {} with our clients.",
  };
  return list;
}

}  // namespace sift::synth::vocab
