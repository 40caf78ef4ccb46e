// The qualification catalog: one row per qualification, grouped by category. This is data,
// kept as a readable table inside the binary so `sift synth` needs no data files at run time.
//
//   == <category> | <kind>            kind: skill, certification, language or domain
//   <id> | <name> | <aliases> | <implies> | <near misses> | <job titles>
//
// Lists are comma-separated; trailing empty columns may be left out. <implies> and <near misses>
// name other rows by their canonical name. "implies": holding this row means holding those too
// (a certification implies its skill). "near misses": a different qualification whose name
// looks alike (Java / JavaScript); declared once, used both ways. "job titles": titles that
// state this qualification ("Data Engineer" states Data Engineering); they are aliases too.
//
// Ids are stable: never renumber or reuse one; add new rows with the next free id.
// Catalog::parse validates everything (unique ids, names and surface forms, references).
#include "synth/catalog_table.h"

namespace sift::synth {

const char* const kCatalogTable = R"catalog(
== Programming languages | skill
q0000 | Python | Python 3, CPython
q0001 | Java | Java SE | | JavaScript
q0002 | JavaScript | JS, ECMAScript
q0003 | TypeScript | TS | JavaScript
q0004 | C++ | CPP, Modern C++
q0005 | C# | CSharp, C Sharp
q0006 | Golang | Go language
q0007 | Rust | Rust language
q0008 | Kotlin
q0009 | Swift | Swift language | | SWIFT Payments Messaging
q0010 | Objective-C | ObjC
q0011 | Ruby
q0012 | PHP
q0013 | Scala
q0014 | R Programming | R language, RStats
q0015 | MATLAB
q0016 | Julia
q0017 | Perl
q0018 | Haskell
q0019 | Elixir
q0020 | Erlang
q0021 | Clojure
q0022 | F#
q0023 | Dart
q0024 | Lua
q0025 | Bash Scripting | Bash, Shell Scripting
q0026 | PowerShell
q0027 | Fortran
q0028 | COBOL
q0029 | Assembly Language | x86 Assembly, Assembler
q0030 | Visual Basic | | | Visual Studio
q0031 | Groovy
q0032 | Solidity
q0033 | Embedded C
q0034 | SQL | Structured Query Language
q0035 | OCaml
q0036 | Prolog
q0037 | Zig

== Web development | skill
q0038 | React | React.js, ReactJS | JavaScript
q0039 | React Native | | React
q0040 | Angular | Angular 2+ | TypeScript | AngularJS
q0041 | AngularJS | Angular.js | JavaScript
q0042 | Vue.js | Vue, VueJS | JavaScript
q0043 | Svelte | SvelteKit | JavaScript
q0044 | Next.js | NextJS | React
q0045 | Nuxt.js | Nuxt | Vue.js
q0046 | Node.js | NodeJS, Node | JavaScript
q0047 | Express.js | ExpressJS | Node.js
q0048 | Django | | Python
q0049 | Flask | | Python
q0050 | FastAPI | | Python
q0051 | Spring Framework | Spring | Java
q0052 | Spring Boot | | Spring Framework
q0053 | Ruby on Rails | Rails, RoR | Ruby
q0054 | Laravel | | PHP
q0055 | Symfony | | PHP
q0056 | .NET Framework | .NET, dotnet
q0057 | ASP.NET Core | ASP.NET | C#, .NET Framework
q0058 | HTML5 | HTML
q0059 | CSS3 | CSS
q0060 | Sass | SCSS | CSS3
q0061 | Tailwind CSS | Tailwind | CSS3
q0062 | Bootstrap | | CSS3
q0063 | jQuery | | JavaScript
q0064 | Redux | Redux Toolkit | JavaScript
q0065 | GraphQL
q0066 | REST API Design | RESTful APIs, REST APIs
q0067 | WebAssembly | Wasm
q0068 | Webpack
q0069 | WordPress
q0070 | Three.js | ThreeJS | JavaScript
q0071 | D3.js | D3 | JavaScript
q0072 | Gatsby | GatsbyJS | React
q0073 | Ember.js | Ember | JavaScript
q0074 | Web Accessibility | WCAG, a11y
q0075 | Progressive Web Apps | PWA

== Mobile development | skill
q0076 | Android Development | Android SDK | | | Android Developer, Android Engineer
q0077 | iOS Development | iOS SDK | | | iOS Developer, iOS Engineer
q0078 | Flutter | | Dart
q0079 | SwiftUI | | Swift, iOS Development
q0080 | Jetpack Compose | | Kotlin, Android Development
q0081 | Xamarin | | C#
q0082 | Ionic Framework | Ionic
q0083 | UIKit | | iOS Development
q0084 | Firebase | Google Firebase

== Databases | skill
q0085 | PostgreSQL | Postgres | SQL
q0086 | PostGIS | | PostgreSQL
q0087 | MySQL | | SQL
q0088 | Microsoft SQL Server | MSSQL, SQL Server | SQL
q0089 | Oracle Database | Oracle DB | SQL | Oracle E-Business Suite
q0090 | SQLite | | SQL
q0091 | MongoDB | Mongo
q0092 | Redis
q0093 | Apache Cassandra | Cassandra
q0094 | Elasticsearch
q0095 | Amazon DynamoDB | DynamoDB | Amazon Web Services
q0096 | Neo4j
q0097 | MariaDB | | SQL
q0098 | Apache CouchDB | CouchDB
q0099 | Couchbase
q0100 | InfluxDB
q0101 | Snowflake | Snowflake Data Cloud | SQL
q0102 | Google BigQuery | BigQuery | SQL, Google Cloud Platform
q0103 | Amazon Redshift | Redshift | SQL, Amazon Web Services
q0104 | PL/SQL | | Oracle Database
q0105 | Database Administration | DBA | | | Database Administrator
q0106 | Database Design | Relational Database Design
q0107 | Data Modeling | Data Modelling
q0108 | CockroachDB | | SQL
q0109 | ClickHouse | | SQL
q0110 | Teradata | | SQL
q0111 | IBM Db2 | DB2 | SQL
q0112 | Microsoft Access | MS Access

== Data engineering | skill
q0113 | Data Engineering | | | | Data Engineer
q0114 | Apache Spark | Spark, PySpark | | Spark AR
q0115 | Apache Kafka | Kafka
q0116 | Kafka Streams | | Apache Kafka
q0117 | Apache Airflow | Airflow
q0118 | Apache Hadoop | Hadoop, HDFS
q0119 | Apache Hive | Hive | Apache Hadoop
q0120 | Apache Flink | Flink
q0121 | Apache Beam
q0122 | dbt | data build tool | SQL
q0123 | Databricks | | Apache Spark
q0124 | Databricks Unity Catalog | Unity Catalog | Databricks | Unity
q0125 | ETL | Extract Transform Load
q0126 | Data Warehousing | Data Warehouse Design
q0127 | Data Lake Architecture | Data Lakes
q0128 | Apache NiFi | NiFi
q0129 | Talend
q0130 | Informatica PowerCenter | Informatica
q0131 | Fivetran
q0132 | Apache Iceberg | Iceberg
q0133 | Delta Lake
q0134 | Stream Processing | Real-Time Data Streaming
q0135 | Big Data

== Machine learning and AI | skill
q0136 | Machine Learning | ML | | | Machine Learning Engineer, ML Engineer
q0137 | Deep Learning | | Machine Learning
q0138 | Natural Language Processing | NLP | Machine Learning
q0139 | Computer Vision | | Machine Learning
q0140 | Large Language Models | LLMs, LLM
q0141 | Prompt Engineering
q0142 | Retrieval-Augmented Generation | RAG | Large Language Models
q0143 | Reinforcement Learning | | Machine Learning
q0144 | TensorFlow | | Deep Learning
q0145 | PyTorch | | Deep Learning, Python
q0146 | Keras | | Deep Learning
q0147 | scikit-learn | sklearn | Machine Learning, Python
q0148 | XGBoost | | Machine Learning
q0149 | LightGBM | | Machine Learning
q0150 | pandas | | Python
q0151 | NumPy | | Python
q0152 | Jupyter Notebook | Jupyter, JupyterLab
q0153 | Hugging Face Transformers | Hugging Face | Natural Language Processing
q0154 | OpenCV | | Computer Vision
q0155 | MLOps | ML Ops | Machine Learning | | MLOps Engineer
q0156 | MLflow
q0157 | Kubeflow | | Kubernetes
q0158 | Feature Engineering
q0159 | Time Series Forecasting
q0160 | Recommender Systems | Recommendation Systems | Machine Learning
q0161 | Statistical Modeling | Statistical Modelling
q0162 | Bayesian Statistics | Bayesian Inference | Statistics
q0163 | A/B Testing | Split Testing
q0164 | Data Science | | | | Data Scientist
q0165 | Speech Recognition | Automatic Speech Recognition, ASR
q0166 | Generative AI | GenAI
q0167 | LangChain | | Large Language Models
q0168 | Vertex AI | | Google Cloud Platform, Machine Learning
q0169 | Amazon SageMaker | SageMaker | Amazon Web Services, Machine Learning
q0170 | Azure Machine Learning | Azure ML | Microsoft Azure, Machine Learning

== Cloud platforms | skill
q0171 | Amazon Web Services | AWS
q0172 | Microsoft Azure | Azure | | Azure DevOps
q0173 | Google Cloud Platform | GCP, Google Cloud | | Google Analytics
q0174 | AWS Lambda | Lambda | Amazon Web Services, Serverless Architecture
q0175 | Amazon EC2 | EC2 | Amazon Web Services
q0176 | Amazon S3 | S3 | Amazon Web Services
q0177 | AWS CloudFormation | CloudFormation | Amazon Web Services, Infrastructure as Code
q0178 | Azure Functions | | Microsoft Azure, Serverless Architecture
q0179 | Google Kubernetes Engine | GKE | Google Cloud Platform, Kubernetes
q0180 | Serverless Architecture | Serverless
q0181 | Cloud Architecture | Cloud Solution Architecture | | | Cloud Architect, Cloud Engineer
q0182 | Cloud Cost Optimization | FinOps
q0183 | Heroku
q0184 | DigitalOcean
q0185 | Oracle Cloud Infrastructure | OCI
q0186 | IBM Cloud
q0187 | Cloudflare
q0188 | OpenStack
q0189 | VMware vSphere | vSphere, VMware | Virtualization
q0190 | Virtualization

== DevOps and infrastructure | skill
q0191 | DevOps | | | | DevOps Engineer
q0192 | Site Reliability Engineering | SRE | | | Site Reliability Engineer
q0193 | Docker | Docker Compose
q0194 | Docker Swarm | | Docker
q0195 | Kubernetes | K8s, EKS
q0196 | Helm | Helm Charts | Kubernetes
q0197 | Terraform | | Infrastructure as Code
q0198 | Ansible
q0199 | Puppet
q0200 | Chef Infra | Chef
q0201 | Jenkins | | CI/CD
q0202 | CI/CD | Continuous Integration, Continuous Delivery
q0203 | GitHub Actions | | CI/CD, Git
q0204 | GitLab CI | GitLab CI/CD | CI/CD, Git
q0205 | CircleCI | | CI/CD
q0206 | Azure DevOps | Azure Pipelines | CI/CD, DevOps
q0207 | Git | Git version control
q0208 | Linux | GNU/Linux
q0209 | System Administration | SysAdmin | | | Systems Administrator, System Administrator
q0210 | Prometheus
q0211 | Grafana
q0212 | Datadog
q0213 | Splunk
q0214 | ELK Stack | Elastic Stack | Elasticsearch
q0215 | Nginx
q0216 | Apache HTTP Server | Apache httpd | | Apache Spark
q0217 | Infrastructure as Code | IaC
q0218 | Argo CD | ArgoCD | Kubernetes
q0219 | Istio | | Kubernetes
q0220 | HashiCorp Vault | Vault
q0221 | Pulumi | | Infrastructure as Code
q0222 | Windows Server
q0223 | OpenTelemetry

== Security | skill
q0224 | Cybersecurity | Information Security, InfoSec | | | Security Engineer, Security Analyst
q0225 | Penetration Testing | Pen Testing, Pentesting | | | Penetration Tester
q0226 | Network Security
q0227 | Application Security | AppSec
q0228 | Cloud Security
q0229 | Identity and Access Management | IAM
q0230 | SIEM | Security Information and Event Management
q0231 | Threat Modeling | Threat Modelling
q0232 | Incident Response
q0233 | Vulnerability Management
q0234 | Cryptography
q0235 | Security Operations | SecOps
q0236 | Digital Forensics
q0237 | Zero Trust Architecture | Zero Trust
q0238 | Burp Suite | | Penetration Testing
q0239 | Metasploit | | Penetration Testing
q0240 | Wireshark
q0241 | Malware Analysis

== Networking | skill
q0242 | Network Engineering | Computer Networking | | | Network Engineer
q0243 | TCP/IP
q0244 | Cisco IOS
q0245 | Routing and Switching
q0246 | BGP | Border Gateway Protocol
q0247 | Firewall Configuration | Firewall Management
q0248 | VPN Configuration
q0249 | SD-WAN
q0250 | DNS Administration | DNS
q0251 | Load Balancing
q0252 | Wireless Networking | WLAN
q0253 | VoIP | Voice over IP

== Software practices | skill
q0254 | Agile Methodologies | Agile
q0255 | Scrum | | Agile Methodologies
q0256 | Kanban
q0257 | Test-Driven Development | TDD
q0258 | Behavior-Driven Development | BDD
q0259 | Microservices Architecture | Microservices
q0260 | Object-Oriented Programming | OOP
q0261 | Functional Programming
q0262 | Design Patterns
q0263 | System Design
q0264 | Software Architecture | | | | Software Architect
q0265 | Software Engineering | | | | Software Engineer, Software Developer
q0266 | Backend Development | Back-End Development | | | Backend Engineer, Backend Developer
q0267 | Frontend Development | Front-End Development | | | Frontend Engineer, Frontend Developer
q0268 | Full-Stack Development | | | | Full-Stack Developer, Full Stack Engineer
q0269 | Code Review
q0270 | Unit Testing
q0271 | Test Automation | Automated Testing
q0272 | Quality Assurance | QA | | | QA Engineer, QA Analyst
q0273 | Selenium | Selenium WebDriver | Test Automation
q0274 | Cypress | | Test Automation
q0275 | Jest | | JavaScript, Unit Testing
q0276 | JUnit | | Java, Unit Testing
q0277 | pytest | | Python, Unit Testing
q0278 | Domain-Driven Design | DDD
q0279 | Event-Driven Architecture
q0280 | IT Service Management | ITSM
q0281 | Game Development | | | | Game Developer
q0282 | Unity | Unity3D | | Databricks Unity Catalog
q0283 | Unreal Engine | Unreal, UE5 | C++
q0284 | Embedded Systems | Embedded Software | Software Engineering | | Embedded Software Engineer
q0285 | Visual Studio
q0286 | Visual Studio Code | VS Code | | Visual Studio
q0287 | IntelliJ IDEA | IntelliJ
q0288 | Jira | Atlassian Jira
q0289 | Confluence
q0290 | Postman

== Data analysis and BI | skill
q0291 | Data Analysis | Data Analytics | | | Data Analyst
q0292 | Business Intelligence | BI | | | BI Analyst, Business Intelligence Analyst
q0293 | Tableau
q0294 | Microsoft Power BI | Power BI | Business Intelligence | Microsoft Power Automate
q0295 | Microsoft Power Automate | Power Automate, Microsoft Flow
q0296 | Looker | | | Looker Studio
q0297 | Looker Studio | Google Data Studio
q0298 | Qlik Sense | Qlik
q0299 | Microsoft Excel | Excel, MS Excel
q0300 | Excel VBA | VBA, Excel Macros | Microsoft Excel
q0301 | Google Sheets
q0302 | Statistics | Statistical Analysis
q0303 | SPSS | IBM SPSS
q0304 | SAS | SAS Programming
q0305 | Stata
q0306 | Data Visualization | Data Viz
q0307 | Alteryx
q0308 | Data Wrangling | Data Cleaning
q0309 | Data Governance
q0310 | Master Data Management | MDM

== Design and creative | skill
q0311 | Adobe Photoshop | Photoshop | | Adobe Illustrator
q0312 | Adobe Illustrator | Illustrator
q0313 | Adobe InDesign | InDesign
q0314 | Adobe Premiere Pro | Premiere Pro
q0315 | Adobe After Effects | After Effects
q0316 | Adobe XD
q0317 | Adobe Lightroom | Lightroom
q0318 | Figma
q0319 | Sketch
q0320 | Canva
q0321 | Blender
q0322 | Autodesk Maya | Maya
q0323 | Cinema 4D | C4D
q0324 | UI Design | User Interface Design | | | UI Designer
q0325 | UX Design | User Experience Design | | | UX Designer, Product Designer
q0326 | UX Research | User Research | | | UX Researcher
q0327 | Graphic Design | | | | Graphic Designer
q0328 | Motion Graphics | | | | Motion Designer
q0329 | Typography
q0330 | Brand Identity Design | Visual Identity Design
q0331 | Illustration | | | | Illustration Artist
q0332 | Photography | | | | Photographer
q0333 | Video Editing | | | | Video Editor
q0334 | Interaction Design | IxD
q0335 | Wireframing
q0336 | Spark AR | Spark AR Studio, Meta Spark
q0337 | Final Cut Pro
q0338 | DaVinci Resolve

== Office and productivity | skill
q0339 | Microsoft Word | MS Word
q0340 | Microsoft PowerPoint | PowerPoint
q0341 | Microsoft Outlook | Outlook
q0342 | Microsoft Teams | MS Teams
q0343 | Microsoft Office | MS Office, Office 365, Microsoft 365
q0344 | SharePoint | Microsoft SharePoint
q0345 | Google Workspace | G Suite
q0346 | Notion
q0347 | Asana
q0348 | Trello
q0349 | Monday.com
q0350 | Smartsheet
q0351 | Airtable

== Business software | skill
q0352 | Salesforce | Salesforce CRM | Customer Relationship Management | Salesforce Marketing Cloud
q0353 | Salesforce Marketing Cloud
q0354 | HubSpot | HubSpot CRM | Customer Relationship Management
q0355 | SAP ERP | SAP
q0356 | SAP S/4HANA | S/4HANA | SAP ERP
q0357 | SAP HANA | | | SAP ERP
q0358 | SAP FICO | SAP FI/CO | SAP ERP
q0359 | Oracle E-Business Suite | Oracle EBS
q0360 | NetSuite | Oracle NetSuite
q0361 | Microsoft Dynamics 365 | Dynamics 365, Dynamics CRM | Customer Relationship Management
q0362 | Workday
q0363 | ServiceNow
q0364 | Zendesk
q0365 | Shopify
q0366 | Magento | Adobe Commerce
q0367 | QuickBooks
q0368 | Xero
q0369 | Odoo
q0370 | Zoho CRM | | Customer Relationship Management

== Project and product management | skill
q0371 | Project Management | | | Product Management | Project Manager
q0372 | Product Management | | | | Product Manager
q0373 | Program Management | | | | Program Manager
q0374 | Stakeholder Management
q0375 | Risk Management
q0376 | Change Management
q0377 | Budget Management
q0378 | Product Roadmapping | Roadmap Planning
q0379 | Requirements Gathering | Requirements Analysis
q0380 | Business Analysis | | | | Business Analyst
q0381 | Vendor Management
q0382 | Waterfall Methodology | Waterfall
q0383 | Resource Planning
q0384 | Microsoft Project | MS Project
q0385 | Process Improvement | Continuous Improvement
q0386 | Operations Management | | | | Operations Manager

== Marketing and sales | skill
q0387 | Digital Marketing | | | | Digital Marketing Specialist, Digital Marketer
q0388 | Search Engine Optimization | SEO | | | SEO Specialist
q0389 | Search Engine Marketing | SEM
q0390 | Google Ads | Google AdWords | | Google Analytics
q0391 | Google Analytics | GA4
q0392 | Content Marketing | | | | Content Marketer
q0393 | Copywriting | | | | Copywriter
q0394 | Social Media Marketing | SMM | | | Social Media Manager
q0395 | Email Marketing
q0396 | Marketing Automation
q0397 | Marketing Strategy | | | | Marketing Manager
q0398 | Brand Management | | | | Brand Manager
q0399 | Market Research | | | | Market Research Analyst
q0400 | Public Relations | PR | | | PR Specialist
q0401 | Event Planning | Event Coordination | | | Event Planner
q0402 | Affiliate Marketing
q0403 | Influencer Marketing
q0404 | Conversion Rate Optimization | CRO
q0405 | Marketo | Marketo Engage
q0406 | Mailchimp
q0407 | B2B Sales | Business-to-Business Sales | | | Sales Representative
q0408 | Account Management | | | | Account Manager
q0409 | Business Development | BizDev | | | Business Development Manager
q0410 | Lead Generation
q0411 | Customer Relationship Management | CRM
q0412 | Cold Calling
q0413 | Sales Forecasting
q0414 | Customer Success | | | | Customer Success Manager
q0415 | Customer Service | Customer Support | | | Customer Service Representative

== Finance and accounting | skill
q0416 | Financial Analysis | | | | Financial Analyst
q0417 | Financial Modeling | Financial Modelling
q0418 | Accounting | | | | Accountant
q0419 | Bookkeeping | | | | Bookkeeper
q0420 | Auditing | Audit | | | Auditor
q0421 | Tax Preparation | Tax Filing
q0422 | Corporate Finance
q0423 | Investment Banking | | | | Investment Banker
q0424 | Business Valuation | Valuation
q0425 | Mergers and Acquisitions | M&A
q0426 | Financial Reporting
q0427 | IFRS | International Financial Reporting Standards | Financial Reporting
q0428 | US GAAP | GAAP
q0429 | Budgeting and Forecasting | FP&A
q0430 | Accounts Payable
q0431 | Accounts Receivable
q0432 | Payroll | Payroll Administration
q0433 | Credit Risk Analysis | Credit Analysis
q0434 | Portfolio Management | | | | Portfolio Manager
q0435 | Equity Research | | | | Equity Research Analyst
q0436 | Bloomberg Terminal | Bloomberg
q0437 | Anti-Money Laundering | AML | | | AML Analyst
q0438 | Know Your Customer | KYC
q0439 | SWIFT Payments Messaging | SWIFT MT, SWIFT Messaging
q0440 | Treasury Management
q0441 | Actuarial Science | | | | Actuary
q0442 | Cost Accounting | | Accounting
q0443 | Internal Controls
q0444 | Sarbanes-Oxley Compliance | SOX Compliance, SOX
q0445 | Financial Planning | | | | Financial Planner

== Healthcare and clinical | skill
q0446 | Nursing | | | | Registered Nurse, Staff Nurse
q0447 | Patient Care
q0448 | Critical Care Nursing | ICU Nursing | Nursing | | ICU Nurse
q0449 | Perioperative Nursing | Operating Room Nursing | Nursing | | OR Nurse
q0450 | Emergency Medicine | | | | Emergency Physician
q0451 | Pediatrics | Paediatrics | | | Pediatrician
q0452 | Phlebotomy | | | | Phlebotomist
q0453 | Medication Administration
q0454 | Electronic Health Records | EHR, EMR
q0455 | Epic Systems | Epic EHR | Electronic Health Records
q0456 | Cerner | Cerner PowerChart | Electronic Health Records
q0457 | Medical Coding | ICD-10 Coding | | | Medical Coder
q0458 | Medical Billing
q0459 | Clinical Research | | | | Clinical Research Coordinator
q0460 | Good Clinical Practice | ICH E6
q0461 | Pharmacology
q0462 | Pharmacy | | | | Pharmacist
q0463 | Physical Therapy | Physiotherapy | | | Physical Therapist, Physiotherapist
q0464 | Occupational Therapy | | | | Occupational Therapist
q0465 | Radiology | Medical Imaging | | | Radiologic Technologist
q0466 | Wound Care
q0467 | Infection Control | Infection Prevention
q0468 | Triage
q0469 | Mental Health Counseling | | | | Mental Health Counselor
q0470 | Nutrition | Dietetics | | | Dietitian
q0471 | Healthcare Administration | | | | Healthcare Administrator
q0472 | HIPAA Compliance | HIPAA
q0473 | Midwifery | | | | Midwife
q0474 | Dental Hygiene | | | | Dental Hygienist
q0475 | Vital Signs Monitoring

== Engineering | skill
q0476 | Mechanical Engineering | | | | Mechanical Engineer
q0477 | Electrical Engineering | | | | Electrical Engineer
q0478 | Civil Engineering | | | | Civil Engineer
q0479 | Structural Engineering | | | | Structural Engineer
q0480 | Chemical Engineering | | | | Chemical Engineer
q0481 | Aerospace Engineering | | | | Aerospace Engineer
q0482 | Robotics | | | | Robotics Engineer
q0483 | AutoCAD
q0484 | SolidWorks
q0485 | CATIA
q0486 | Autodesk Revit | Revit
q0487 | Finite Element Analysis | FEA
q0488 | Ansys | Ansys Workbench | Finite Element Analysis
q0489 | Computational Fluid Dynamics | CFD
q0490 | PLC Programming | PLC
q0491 | SCADA
q0492 | Circuit Design
q0493 | PCB Design | Printed Circuit Board Design
q0494 | Altium Designer | Altium | PCB Design
q0495 | HVAC Design | HVAC
q0496 | Geotechnical Engineering
q0497 | Building Information Modeling | BIM
q0498 | Lean Manufacturing
q0499 | Lean Six Sigma | Six Sigma
q0500 | ISO 9001 | ISO 9001 Quality Management
q0501 | Geometric Dimensioning and Tolerancing | GD&T
q0502 | Green Building Design | Sustainable Building Design
q0503 | Cost Estimation

== Human resources | skill
q0504 | Human Resources Management | HR Management, HRM | | | HR Manager
q0505 | Talent Acquisition | Recruiting, Recruitment | | | Recruiter, Talent Acquisition Specialist
q0506 | Employee Relations
q0507 | Compensation and Benefits
q0508 | Employee Onboarding | Onboarding
q0509 | Performance Management
q0510 | Learning and Development | L&D
q0511 | Organizational Development
q0512 | HR Information Systems | HRIS
q0513 | Diversity and Inclusion | DEI
q0514 | Workforce Planning
q0515 | Employment Law | Labor Law

== Education | skill
q0516 | Teaching | | | | Teacher, Lecturer
q0517 | Curriculum Development | Curriculum Design
q0518 | Classroom Management
q0519 | Special Education | SPED
q0520 | Instructional Design | | | | Instructional Designer
q0521 | E-Learning Development | eLearning
q0522 | Online Tutoring | | | | Tutor
q0523 | English as a Second Language Teaching | ESL Teaching | Teaching, English | | ESL Teacher
q0524 | Early Childhood Education
q0525 | Learning Management Systems | LMS
q0526 | Moodle | | Learning Management Systems
q0527 | Educational Technology | EdTech

== Legal and compliance | skill
q0528 | Contract Law | | | | Contracts Manager
q0529 | Corporate Law | | | | Corporate Lawyer
q0530 | Intellectual Property Law | IP Law
q0531 | GDPR Compliance | GDPR
q0532 | Regulatory Compliance | | | | Compliance Officer
q0533 | Legal Research | | | | Paralegal
q0534 | Litigation | | | | Litigation Attorney

== Translation and communication | skill
q0535 | Translation | | | | Translator
q0536 | Interpreting | Interpretation | | | Interpreter
q0537 | Localization | L10n
q0538 | Subtitling

== Communication and leadership | skill
q0539 | Technical Writing | | | | Technical Writer
q0540 | Public Speaking
q0541 | Negotiation
q0542 | Team Leadership
q0543 | Cross-functional Collaboration
q0544 | Conflict Resolution
q0545 | Strategic Planning
q0546 | Executive Coaching
q0547 | Time Management

== Industry domains | domain
q0548 | FinTech | Financial Technology
q0549 | E-commerce | Ecommerce
q0550 | Health Informatics
q0551 | Supply Chain Management | SCM | | | Supply Chain Manager
q0552 | Logistics | | | | Logistics Coordinator
q0553 | Procurement | Purchasing | | | Procurement Specialist
q0554 | Inventory Management
q0555 | Insurance Underwriting | Underwriting | | | Underwriter
q0556 | Telecommunications | Telecom
q0557 | Real Estate | | | | Real Estate Agent
q0558 | Renewable Energy
q0559 | Oil and Gas
q0560 | Automotive Industry
q0561 | Retail Management | | | | Store Manager
q0562 | Hospitality Management | | | | Hotel Manager
q0563 | Retail Banking
q0564 | Pharmaceutical Sales
q0565 | Biotechnology
q0566 | Management Consulting | | | | Management Consultant
q0567 | Nonprofit Management | Non-profit Management

== Cloud certifications | certification
q0568 | AWS Certified Solutions Architect | AWS SAA, AWS Solutions Architect Associate | Amazon Web Services, Cloud Architecture
q0569 | AWS Certified Developer | AWS Developer Associate | Amazon Web Services
q0570 | AWS Certified SysOps Administrator | AWS SysOps | Amazon Web Services, System Administration
q0571 | AWS Certified DevOps Engineer | AWS DevOps Professional | Amazon Web Services, DevOps
q0572 | AWS Certified Cloud Practitioner | AWS Cloud Practitioner | Amazon Web Services
q0573 | AWS Certified Machine Learning Specialty | AWS ML Specialty | Amazon Web Services, Machine Learning
q0574 | AWS Certified Security Specialty | AWS Security Specialty | Amazon Web Services, Cloud Security
q0575 | Microsoft Certified: Azure Fundamentals | AZ-900 | Microsoft Azure
q0576 | Microsoft Certified: Azure Administrator Associate | AZ-104 | Microsoft Azure
q0577 | Microsoft Certified: Azure Solutions Architect Expert | AZ-305 | Microsoft Azure, Cloud Architecture
q0578 | Microsoft Certified: Azure Developer Associate | AZ-204 | Microsoft Azure
q0579 | Microsoft Certified: Azure Data Engineer Associate | DP-203 | Microsoft Azure, Data Engineering
q0580 | Google Cloud Professional Cloud Architect | GCP Professional Cloud Architect | Google Cloud Platform, Cloud Architecture
q0581 | Google Cloud Professional Data Engineer | GCP Professional Data Engineer | Google Cloud Platform, Data Engineering
q0582 | Google Cloud Associate Cloud Engineer | GCP Associate Cloud Engineer | Google Cloud Platform, Cloud Architecture
q0583 | Certified Kubernetes Administrator | CKA | Kubernetes
q0584 | Certified Kubernetes Application Developer | CKAD | Kubernetes
q0585 | Certified Kubernetes Security Specialist | CKS | Kubernetes
q0586 | HashiCorp Certified: Terraform Associate | Terraform Associate | Terraform
q0587 | Databricks Certified Data Engineer Associate | | Databricks, Data Engineering
q0588 | Snowflake SnowPro Core Certification | SnowPro Core | Snowflake

== IT and security certifications | certification
q0589 | Oracle Certified Professional Java SE Programmer | OCP Java | Java
q0590 | Red Hat Certified Engineer | RHCE | Linux
q0591 | Red Hat Certified System Administrator | RHCSA | Linux, System Administration
q0592 | LPIC-1 Linux Administrator | LPIC-1 | Linux
q0593 | Cisco Certified Network Associate | CCNA | Network Engineering, Routing and Switching
q0594 | Cisco Certified Network Professional | CCNP | Network Engineering, Routing and Switching
q0595 | CompTIA Network+ | Network+ | Network Engineering
q0596 | CompTIA A+ | A+
q0597 | CompTIA Security+ | Security+ | Cybersecurity
q0598 | Certified Information Systems Security Professional | CISSP | Cybersecurity
q0599 | Certified Ethical Hacker | CEH | Penetration Testing
q0600 | Offensive Security Certified Professional | OSCP | Penetration Testing
q0601 | Certified Information Security Manager | CISM | Cybersecurity
q0602 | Certified Information Systems Auditor | CISA | Auditing
q0603 | ITIL 4 Foundation | ITIL Foundation, ITIL | IT Service Management
q0604 | Tableau Desktop Specialist | | Tableau
q0605 | Microsoft Certified: Power BI Data Analyst Associate | PL-300 | Microsoft Power BI, Data Analysis
q0606 | Microsoft Office Specialist | MOS certification | Microsoft Office

== Management certifications | certification
q0607 | Project Management Professional | PMP | Project Management
q0608 | PRINCE2 Practitioner | PRINCE2 | Project Management
q0609 | Certified ScrumMaster | CSM | Scrum
q0610 | Professional Scrum Master | PSM | Scrum
q0611 | Certified Scrum Product Owner | CSPO | Scrum, Product Management
q0612 | SAFe Agilist | SAFe | Agile Methodologies
q0613 | Lean Six Sigma Green Belt | Six Sigma Green Belt | Lean Six Sigma
q0614 | Lean Six Sigma Black Belt | Six Sigma Black Belt | Lean Six Sigma
q0615 | Certified Supply Chain Professional | CSCP | Supply Chain Management
q0616 | SHRM Certified Professional | SHRM-CP | Human Resources Management
q0617 | Professional in Human Resources | PHR | Human Resources Management
q0618 | TEFL Certificate | TEFL, TESOL | English as a Second Language Teaching
q0619 | LEED Accredited Professional | LEED AP | Green Building Design
q0620 | Professional Engineer License | PE License
q0621 | Autodesk Certified Professional: AutoCAD | AutoCAD Certified Professional | AutoCAD

== Finance certifications | certification
q0622 | Certified Public Accountant | CPA | Accounting
q0623 | Chartered Financial Analyst | CFA | Financial Analysis
q0624 | ACCA Qualification | ACCA, Chartered Certified Accountant | Accounting
q0625 | Financial Risk Manager | FRM | Risk Management
q0626 | Certified Management Accountant | CMA | Cost Accounting
q0627 | Certified Internal Auditor | CIA | Auditing
q0628 | Certified Anti-Money Laundering Specialist | CAMS | Anti-Money Laundering
q0629 | Certified Financial Planner | CFP | Financial Planning

== Marketing certifications | certification
q0630 | Google Analytics Individual Qualification | GAIQ | Google Analytics
q0631 | Google Ads Certification | Google Ads Certified | Google Ads
q0632 | HubSpot Inbound Marketing Certification | HubSpot Inbound | HubSpot, Content Marketing
q0633 | Salesforce Certified Administrator | Salesforce Admin | Salesforce
q0634 | Salesforce Certified Platform Developer | Salesforce Platform Developer | Salesforce

== Healthcare certifications | certification
q0635 | Advanced Cardiovascular Life Support | ACLS | Basic Life Support | Pediatric Advanced Life Support
q0636 | Basic Life Support | BLS
q0637 | Pediatric Advanced Life Support | PALS | Basic Life Support
q0638 | Certified Nursing Assistant | CNA | Patient Care | Nursing
q0639 | Critical Care Registered Nurse | CCRN | Critical Care Nursing
q0640 | Certified Professional Coder | CPC | Medical Coding
q0641 | Neonatal Resuscitation Program | NRP
q0642 | Trauma Nursing Core Course | TNCC | Nursing

== Spoken languages | language
q0643 | English
q0644 | Spanish | Castilian
q0645 | French
q0646 | German
q0647 | Italian
q0648 | Portuguese
q0649 | Dutch
q0650 | Swedish
q0651 | Norwegian
q0652 | Danish
q0653 | Finnish
q0654 | Polish
q0655 | Czech
q0656 | Russian
q0657 | Ukrainian
q0658 | Greek
q0659 | Turkish
q0660 | Arabic
q0661 | Hebrew
q0662 | Persian | Farsi
q0663 | Hindi
q0664 | Bengali | Bangla
q0665 | Urdu
q0666 | Punjabi
q0667 | Tamil
q0668 | Telugu
q0669 | Marathi
q0670 | Mandarin Chinese | Mandarin, Putonghua | | Cantonese
q0671 | Cantonese | Cantonese Chinese, Yue Chinese
q0672 | Japanese
q0673 | Korean
q0674 | Vietnamese
q0675 | Thai
q0676 | Indonesian | Bahasa Indonesia
q0677 | Malay | Bahasa Melayu
q0678 | Tagalog | Filipino
q0679 | Swahili | Kiswahili
q0680 | Hungarian
q0681 | Romanian
q0682 | Bulgarian
q0683 | Serbian
q0684 | Croatian
q0685 | American Sign Language | ASL | | British Sign Language
q0686 | British Sign Language | BSL
)catalog";

}  // namespace sift::synth
