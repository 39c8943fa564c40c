"""Implied states: a home, a job or a school said in passing, by what surrounds it.

People rarely say "I work at X" or "I study at Y" once settled; they say what they do
there or how long they have been there: "I'm in HR at Calloway Foods", "I do IT support
for Redwood Council", "three months in at Bramble Digital", "Crumbs Bakery took me on",
"I'm a second-year at Bristol University", "I'm doing an HND at Glasgow Clyde College",
"since the move to Bristol", "now that I'm in Seattle", "come and stay with me in
Halifax", "I rent a studio in Toronto", "I transferred from Danforth to the Marlow
Institute". Each shape is a word list (departments, student years, qualifications)
around one slot, and the organisation must read as one (`employer_ok`). "Now that I'm
at X" names no slot: it is a school only with study words in the sentence (grad school,
classes, course), a job only with work words (shift, boss, office), else nothing.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import HOME, WORK, Draft, Rule, Sentence, employer_ok, match_span
from graphmem.ingest.rules.grammar import DWELLINGS, STOP_NAMES, alt, rule
from graphmem.ingest.rules.presupposed import about_someone_else, ended_here
from graphmem.ingest.rules.text import REJECT_PLACE, strip_article, take_proper
from graphmem.ingest.rules.work import ORG_WORD, SCHOOL_WORD

__all__ = ["QUESTION_RULES", "RULES"]


_I_AM = r"\b(?:I'm|I\s+am|I've\s+been|I\s+have\s+been)\s+(?:(?:now|currently|still|just|also)\s+)*"
_ORG = r"(?=(?:the\s+)?[A-Z])"
DEPARTMENTS = alt("""
HR|human resources|IT|IT support|tech support|accounts|accounts payable|accounts receivable|accounting|finance|sales|
marketing|legal|admin|administration|operations|ops|logistics|procurement|purchasing|payroll|recruitment|recruiting|
comms|communications|PR|customer service|customer services|customer support|support|engineering|product|design|R&D|
research|compliance|security|QA|data|analytics|facilities|reception|housekeeping|the kitchen|kitchen|dispatch|
the warehouse|warehouse|the lab|admissions|events|editorial|production|IT services|tech|the back office|
front of house|the front desk|the call centre|the call center|fundraising|development|quality|claims|underwriting|
audit|tax|treasury|investments|retail|wholesale|merchandising|buying|publishing|partnerships|training
""")
_DO_WORK = alt("""
IT support|tech support|the books|bookkeeping|payroll|admin|the admin|social media|the social media|marketing|
the marketing|accounts|the accounts|reception|security|deliveries|the deliveries|cleaning|the cleaning|
data entry|customer service|HR|web design|the website|IT|graphic design|copywriting|research|community visits|
home visits|night shifts|shifts|weekend shifts|cover|supply teaching|locum work|agency work|contract work|
freelance work|consulting|consultancy
""")
WORK_DEPT = rule(rf"{_I_AM}(?:in|on|with)\s+(?:the\s+)?{DEPARTMENTS}\s+(?:team\s+|department\s+|dept\s+|side\s+)?"
                 rf"(?:at|for|with)\s+{_ORG}"
                 rf"|\bI\s+(?:now\s+|currently\s+|still\s+|also\s+)?work\s+in\s+(?:the\s+)?{DEPARTMENTS}\s+"
                 rf"(?:team\s+|department\s+|dept\s+)?(?:at|for)\s+{_ORG}"
                 rf"|\bI(?:'m|\s+am)?\s+(?:now\s+|currently\s+|still\s+|also\s+)?(?:do|doing|handle|handling|run|running|"
                 rf"manage|managing|look\s+after|looking\s+after|cover|covering)\s+{_DO_WORK}\s+(?:for|at)\s+{_ORG}",
                 ("i'm", "i am", "i've", "i have", "i work", "i do", "i handl", "i run", "i manag", "i look", "i cover"))
# "three months in at Bramble Digital", "a year in at the council"
TIME_IN_AT = rule(r"\b(?:(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few|few|couple\s+of|"
                  r"several|\d+)\s+)?(?:days?|weeks?|months?|years?)\s+in\s+at\s+" + _ORG, (" in at ",))
# a sentence that opens with how long the speaker has been in a place, verb dropped: "Nearly three years in Leeds and I
# still haven't seen the Dales", "Two years in Berlin now, and ..."; years, not days or weeks (a trip), and not told as
# over ("Five years in Rome was enough": "was" follows)
YEARS_IN = rule(r"^(?:(?:nearly|almost|over|about|around|just\s+over|well\s+over|coming\s+up\s+(?:on|to)|more\s+than)\s+)?"
                r"(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a\s+few|a\s+couple\s+of|"
                r"several|\d{1,2})\s+(?:years?|decades?)\s+in\s+(?=(?:the\s+)?(?-i:[A-Z])[^,.;!?]*?(?:\s+now)?\s*"
                r"(?:,|\s+and\b|\s+now\b|\s+already\b)(?!\s+(?:was|were)\b))", (" in ",))
# the length of a working life with what it was spent doing: "twenty-six years driving for Greyhound", "ten years teaching
# at Hillside"; work verbs only ("two years waiting for Amazon" is no job) and an organisation's name after
_WORK_GERUND = alt("""
working|driving|teaching|nursing|cooking|flying|cleaning|coding|programming|serving|bartending|managing|selling|lecturing|
temping|consulting|freelancing|contracting|trucking|delivering|engineering|designing|building|nannying|caring|waitressing|
waiting tables|stocking shelves|on the tills|on the buses|on the trains|on the railway|in the kitchen at|in the kitchens at
""")
YEARS_DOING = rule(r"\b(?:(?:twenty|thirty|forty|fifty)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|a|one|two|three|"
                   r"four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|"
                   r"nineteen|a\s+few|few|couple\s+of|several|many|\d+)\s+(?:years?|months?|decades?)\s+(?:of\s+)?"
                   + _WORK_GERUND + r"\s+(?:(?:for|at|with)\s+)?" + _ORG,
                   ("working", "driving", "teaching", "nursing", "cooking", "flying", "cleaning", "coding", "programming",
                    "serving", "bartending", "managing", "selling", "lecturing", "temping", "consulting", "freelancing",
                    "contracting", "trucking", "delivering", "engineering", "designing", "building", "nannying", "caring",
                    "waitressing", "waiting", "stocking", "tills", "buses", "trains", "railway", "kitchen"))
# "Crumbs Bakery took me on", "Veritas hired me in June"
HIRED_ME = rule(r"(?P<org>(?-i:[A-Z][\w&'.-]*(?:\s+(?:[A-Z][\w&'.-]*|of|and|&))*?))\s+(?:(?:eventually|finally|just|"
                r"luckily|then|quickly)\s+)*(?:took\s+me\s+on|hired\s+me|snapped\s+me\s+up|brought\s+me\s+on(?:board|\s+board)?|"
                r"signed\s+me(?:\s+up)?\s+(?:as|full[\s-]time|permanently)|gave\s+me\s+a\s+(?:permanent\s+|full[\s-]time\s+)?"
                r"(?:job|contract|role|position))\b", ("took me on", "hired me", "snapped me", "brought me", "signed me",
                                                      "gave me a"))
_YEARS = alt("""
first-year|first year|second-year|second year|third-year|third year|fourth-year|fourth year|final-year|final year|
fresher|freshman|sophomore|undergrad|undergraduate|postgrad|postgraduate|grad student|graduate student|
PhD student|PhD candidate|doctoral student|doctoral candidate|masters student|master's student|mature student|
exchange student|student|med student|medical student|law student|nursing student|art student|music student|
engineering student|business student|research student|first-year student|second-year student|final-year student
""")
STUDENT_AT = rule(rf"{_I_AM}(?:a|an)\s+(?:(?:full[\s-]time|part[\s-]time|international|returning)\s+)?{_YEARS}\s+"
                  rf"(?:(?:studying|reading|doing|majoring\s+in)\s+[a-z]+\s+)?at\s+{_ORG}", ("student", "year", "fresher",
                                                                                            "freshman", "sophomore",
                                                                                            "grad", "candidate"))
_QUALIFICATIONS = alt("""
degree|masters|master's|MA|MSc|MBA|MPhil|BSc|BA|BEng|LLB|LLM|PhD|doctorate|HND|HNC|BTEC|diploma|foundation year|
foundation degree|certificate|A-levels|A levels|postgrad|PGCE|postgraduate diploma|access course|course|
nursing degree|law degree|teaching qualification|conversion course
""")
QUALIFICATION_AT = rule(rf"{_I_AM}(?:doing|studying|taking|working\s+towards|working\s+toward|halfway\s+through|"
                        rf"in\s+the\s+middle\s+of|partway\s+through|enrolled\s+on|enrolled\s+in)\s+(?:a|an|my|the)\s+"
                        rf"(?:(?:[a-z-]+|\d+[a-z]*)\s+){{0,2}}?{_QUALIFICATIONS}\b(?:\s+in\s+(?:[a-z-]+|[A-Z][a-z]+)"
                        rf"(?:\s+[a-z-]+)?)?\s+at\s+{_ORG}", ("doing", "studying", "taking", "towards", "toward",
                                                             "through", "middle", "enrolled"))
# "I've since enrolled at Strathclyde"
ENROLLED_AT = rule(r"\b(?:I|we)(?:'ve|\s+have)?\s+(?:since|now|just|finally|recently|officially)\s+(?:enrolled|matriculated|"
                   r"registered)\s+(?:at|with)\s+" + _ORG, ("enrolled", "matriculated", "registered"))
# "I transferred from Danforth to the Marlow Institute of Technology"
TRANSFERRED = rule(r"\b(?:I|we)(?:'ve|\s+have)?\s+(?:(?:just|finally|recently|officially|since)\s+)*transferred\s+"
                   r"(?:over\s+)?from\s+(?:the\s+)?(?=[A-Z])", ("transferred",))
_STUDY_HINT = re.compile(r"\b(?:grad\s+school|graduate\s+school|uni|university|college|classes|class|course|courses|"
                         r"credits|modules?|degree|semester|term|lectures?|professors?|profs?|tutors?|advisor|adviser|"
                         r"exams?|finals|thesis|dissertation|campus|freshers|major|studying|study|undergrad|postgrad|"
                         r"masters|phd|coursework|homework|assignments?|workload|(?:first|second|third|fourth|final)-year|freshman|sophomore|"
                         r"problem\s+sets?|psets?|midterms?|GPA|syllabus|tuition|office\s+hours|(?-i:TAs?))\b", re.IGNORECASE)
_WORK_HINT = re.compile(r"\b(?:job|shifts?|boss|manager|colleagues?|coworkers?|office|team|role|position|salary|pay|"
                        r"clients?|customers?|branch|department|contract|promotion|commute|hours|working)\b",
                        re.IGNORECASE)
# "First week at Monzo done!", "survived my first shift at Crumbs Bakery": a start, at work or at school
FIRST_AT = rule(r"(?:^|\b(?:survived|finished|completed|done\s+with|got\s+through|made\s+it\s+through)\s+)(?:my\s+)?"
                r"(?:very\s+)?first\s+(?P<period>day|week|fortnight|month|shift|semester|term)\s+at\s+" + _ORG, ("first",))
_FIRST_DONE = re.compile(r"\s*(?:is\s+|was\s+)?(?:done|over|complete|completed|survived|down|in\s+the\s+books|finished)\b",
                         re.IGNORECASE)
_NOT_A_START = re.compile(r"\b(?:conference|summit|festival|expo|convention|camp|retreat|resort|hotel|holiday|vacation|trip|"
                          r"visit|visiting|tour|cruise|park|fair|con)\b", re.IGNORECASE)
# "started roasting for Blue Bottle Coffee", "I've been driving for Uber": a trade done for an organisation is a job
_TRADE_WORDS = """
roasting|baking|cooking|cheffing|bartending|waitressing|waiting tables|serving|cleaning|nursing|caring|teaching|
tutoring|lecturing|coaching|writing|reporting|editing|subediting|copywriting|translating|illustrating|designing|
animating|photographing|filming|producing|presenting|broadcasting|coding|programming|developing|engineering|
testing|recruiting|selling|managing|accounting|bookkeeping|auditing|driving|delivering|couriering|modelling|modeling|
stocking|picking|packing|building|plumbing|landscaping|gardening|dispatching|interning
"""
_TRADES = alt(_TRADE_WORDS)
# a person is cooked or written for too ("cooking for Sarah"): a one-word name only after a trade one never does for a person
_TRADES_FOR_FIRMS_ONLY = frozenset(("roasting bartending waitressing cheffing reporting subediting copywriting coding "
                                    "programming developing engineering testing recruiting auditing driving delivering "
                                    "couriering modelling modeling stocking picking packing dispatching interning").split())
TRADE_FOR = rule(r"\b(?:I|we)(?:'ve|'m|\s+have|\s+am)?\s+(?:(?:just|now|recently|since|also|been|started|begun|began|"
                 rf"currently|officially)\s+)+(?P<trade>{_TRADES})\s+for\s+" + _ORG,
                 tuple(sorted({w.split()[0] for w in _TRADE_WORDS.replace("\n", "").split("|") if w.strip()})))
# "I've been nursing at St. Luke's for ten years", "I'm teaching at Fairview Academy now": a profession done at a
# place is a job there, for the gerunds nobody does for fun ("swimming at the Lido" is a pastime)
_PROFESSION_WORDS = """
nursing|teaching|lecturing|bartending|waitressing|cheffing|interning|temping|lifeguarding|nannying|hairdressing|
barbering|cashiering|clerking|midwifing|doctoring|lawyering|subbing|supply teaching|student teaching|locuming
"""
TRADE_AT = rule(rf"{_I_AM}(?P<trade>{alt(_PROFESSION_WORDS)})\s+at\s+" + _ORG,
                tuple(sorted({w.split()[-1] for w in _PROFESSION_WORDS.replace("\n", "").split("|") if w.strip()})))
# "Three weeks into the new gig at Shopify", "two months into my masters at Leeds": a time spent in a job or a course
_JOB_NOUNS = r"(?:job|gig|role|position|post|contract|placement|internship|apprenticeship|traineeship|residency)"
_COURSE_NOUNS = (r"(?:degree|course|masters|master's|MA|MSc|MBA|PhD|doctorate|programme|program|studies|semester|term|"
                 r"first\s+year|second\s+year|final\s+year|freshman\s+year|foundation\s+year|apprenticeship\s+course)")
TIME_INTO = rule(r"\b(?:(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few|a\s+couple\s+of|"
                 r"couple\s+of|several|\d+)\s+)?(?:days?|weeks?|months?|years?)\s+into\s+(?:my|the|our)\s+"
                 r"(?:(?:new|first|current|latest|shiny\s+new)\s+)?(?:(?P<job>" + _JOB_NOUNS + r")|(?P<course>"
                 + _COURSE_NOUNS + r"))\s+(?:at|with)\s+" + _ORG, (" into ",))
# "Self-review season at Deloitte again.", "Appraisal week at Halden Council": only staff have review seasons (a sentence
# that opens with the phrase, so it is the speaker's; "layoff season at X" is news anyone reads and is not one)
WORK_SEASON = rule(r"^(?:(?:ugh|so|well|and|oh|yep|yup|ah|it's|its|it\s+is)[,!]?\s+)*(?:(?:my|our|the)\s+)?(?:annual\s+|"
                   r"mid-year\s+|end-of-year\s+|year-end\s+)?(?:self-review|self\s+review|self-assessment|self\s+assessment|"
                   r"performance\s+review|review|appraisal|promotion|promo|objective-setting|rota)\s+"
                   r"(?:season|time|week|month|cycle|period)\s+(?:again\s+)?at\s+" + _ORG,
                   ("review", "appraisal", "assessment", "promo", "objective", "rota"))
# "everyone else at McGill finishes faster than me", "the other nurses at St. Jude's": the speaker is one of them; a
# school or a job by the role named, else a school by the turn's study words ("first-year", "problem sets"), else nothing
MEMBER_AT = rule(r"\b(?:(?:everyone|everybody)\s+else|the\s+rest\s+of\s+us|the\s+other\s+(?:students|staff|"
                 r"nurses|teachers|interns|grads|freshers|freshmen|first-years|engineers|developers|doctors|analysts|newbies|"
                 r"new\s+starters|new\s+hires|trainees|apprentices))\s+(?:here\s+)?at\s+" + _ORG,
                 ("everyone else", "everybody else", "rest of us", "the other "))
# "Transferring to U of T was the right call", "Moving to Leeds has been the best thing": the change, done, as subject
GERUND_CHANGE = rule(r"(?:^|[,;:]\s+|\b(?:honestly|but|and|so|well)\s+)(?P<verb>transferring|switching|moving|relocating)\s+"
                     r"(?:(?:over|back|schools|unis|courses|universities|colleges|up|down|out)\s+)?(?:to|into)\s+" + _ORG,
                     ("transferring", "switching", "moving", "relocating"))
_DONE_CHANGE = re.compile(r"[^,;:!?]{0,40}?\s(?:was|has\s+been|turned\s+out|ended\s+up|proved|'s\s+been|is\s+the\s+best)\b",
                          re.IGNORECASE)
_NOT_DONE = re.compile(r"\b(?:would|could|might|will|gonna|going\s+to|plan|plans|planned|planning|idea|dream|option|"
                       r"mistake|regret|considered|consider|considering|thinking|discussed|talked|off|cancelled|canceled|"
                       r"on\s+the\s+table|on\s+hold|not|never|if)\b", re.IGNORECASE)
# "since the move to Bristol", "after moving to Leeds"
SINCE_MOVE = rule(r"\b(?:since|after|ever\s+since)\s+(?:(?:the|our|my)\s+(?:big\s+)?(?:move|relocation)|moving|relocating|"
                  r"we\s+moved|I\s+moved)\s+(?:(?:up|down|over|out|back|across)\s+)?to\s+" + _ORG, ("since", "after"))
# "now that I'm in Seattle", "now I'm at Stanford"
NOW_THAT_IN = rule(r"\bnow\s+(?:that\s+)?(?:I'm|I\s+am|we're|we\s+are)\s+(?:(?:living|based|settled|back)\s+)?in\s+"
                   + _ORG, ("now",))
NOW_THAT_AT = rule(r"\bnow\s+(?:that\s+)?(?:I'm|I\s+am)\s+(?:(?:studying|working|based)\s+)?at\s+" + _ORG, ("now",))
# "I'm in Leeds and it's been raining for weeks", "We're in the Bay Area": where the speaker is, said first
I_AM_IN = rule(r"^(?:(?:so|well|ok|okay|hi|hey|hello|honestly)[,!]?\s+)?(?:I'm|I\s+am|we're|we\s+are)\s+"
               r"(?:(?:currently|now|still|based|living|settled)\s+)*in\s+" + _ORG, ("i'm in", "i am", "we're", "we are"))
# a stay, an errand or a membership, not a home: "I'm in Rome for the week", "I'm in Tesco right now", "I'm in Year 10"
_STAY = re.compile(r"[^,.;!?]{0,30}?\b(?:for\s+(?:a|the|two|three|four|five|six|\d+|a\s+few|a\s+couple\s+of)\s+"
                   r"(?:days?|nights?|weeks?|weekend|fortnight|months?)|for\s+(?:work|business|a\s+bit|now)|this\s+(?:week|"
                   r"weekend|month)|today|tonight|right\s+now|at\s+the\s+moment|until|till|visiting|on\s+(?:holiday|vacation|"
                   r"a\s+trip|business))\b", re.IGNORECASE)
_NOT_A_PLACE = re.compile(rf"^(?:the\s+)?(?:(?:{DEPARTMENTS})\b|(?:Year|Grade|Class|Room|Group|Team|Club|Band|Love|Charge|"
                          r"Store|Shop|Hospital|Bed|Office|Court|Church)\b)",
                          re.IGNORECASE)
# "come and stay with me in Halifax", "friends are visiting us here in Leeds"
WITH_ME_IN = rule(r"\b(?:stay|staying|stop|stopping|come|coming|crash|crashing|visit|visiting|see|seeing)\s+(?:and\s+"
                  r"(?:stay|see)\s+)?(?:with\s+)?(?:me|us)\s+(?:here\s+|out\s+here\s+|up\s+here\s+|down\s+here\s+)?in\s+"
                  + _ORG, (" me ", " us "))
# "Living in NYC is so expensive": said of one's own life, in the present
LIVING_IN = rule(r"^(?:(?:honestly|so|but|and|man|god|gosh|ugh|okay|ok|well),?\s+)?living\s+(?:here\s+)?in\s+" + _ORG
                 + r"(?=[^,.;!?]{0,40}?\s(?:is|has\s+been|can\s+be|gets|isn't|feels|means|costs)\b)", ("living",))
# "I'm with Harley Medical Group now": an organisation (its name says so) with a present-time word
WITH_ORG_NOW = rule(rf"{_I_AM}with\s+" + _ORG, ("i'm with", "i am with", "been with"))
_NOW_WORD = re.compile(r"^[^,.;!?]{0,20}?\b(?:now|these\s+days|since|for\s+(?:\w+\s+)?(?:years?|months?|weeks?))\b",
                       re.IGNORECASE)

# "I rent a tiny studio in Toronto", "we bought a house in Montclair"
_DWELLING = DWELLINGS
RENT_IN = rule(rf"\b(?:I|we)(?:'ve|\s+have)?\s+(?:(?:just|finally|now|recently|since|currently|also)\s+)*(?:rent|share|sublet|"
               rf"bought|purchased|closed\s+on|rented|moved\s+into|settled\s+into|settled\s+in\s+to)\s+(?:a|an|our|my|the)\s+"
               rf"(?:(?:first|own)\s+)?(?:[a-z-]+\s+){{0,3}}?"
               rf"{_DWELLING}\s+(?:just\s+)?(?:in|near|outside|on\s+the\s+edge\s+of)\s+" + _ORG,
               ("rent", "share", "sublet", "bought", "purchased", "closed on", "moved into", "settled"))
# looking after one's home, said with where it is: "tips for keeping a second-floor apartment in Austin cool", "heating
# our flat in Leeds"; a first-person turn only, and never a holiday let, a rental to let or a stay
UPKEEP_IN = rule(rf"\b(?:keep(?:ing)?|heat(?:ing)?|cool(?:ing)?|insulat(?:e|ing)|soundproof(?:ing)?|declutter(?:ing)?|"
                 rf"decorat(?:e|ing)|furnish(?:ing)?|clean(?:ing)?|damp-?proof(?:ing)?|draught-?proof(?:ing)?|"
                 rf"childproof(?:ing)?|baby-?proof(?:ing)?)\s+(?:a|an|our|my)\s+(?:[a-z-]+\s+){{0,3}}?{_DWELLING}\s+in\s+" + _ORG,
                 ("keep", "heat", "cool", "insulat", "soundproof", "declutter", "decorat", "furnish", "clean", "proof"))
# "been here three years now" says the speaker lives where the turn named a moment before: "day trips from Glasgow? been
# here three years" (years or months: days and weeks are visits); not after a move's origin ("moved here from Leeds")
BEEN_HERE = rule(r"\b(?:(?:I|we)(?:'ve|\s+have)\s+|^)(?:been|lived|living)\s+(?:out\s+|up\s+|down\s+|over\s+)?here\s+(?:for\s+)?"
                 r"(?:(?:about|nearly|almost|over|around|roughly|just\s+over|just\s+under|going\s+on)\s+)?(?:a|an|\d+|one|two|three|four|"
                 r"five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|a\s+few|a\s+couple\s+of|several|many)\s+"
                 r"(?:years?|months?|decades?)\b", ("here",))
_NOT_HOME = re.compile(r"\b(?:holiday|vacation|second(?![\s-](?:floor|storey|story|hand))|investment|buy-to-let|rental\s+property|airbnb|for\s+(?:the|a|two|"
                       r"three|\d+)\s+(?:week|weekend|night|days?|month)|for\s+my\s+(?:mum|mom|dad|parents|son|daughter)|to\s+(?:rent|let)\s+out|"
                       r"tenants?|flip|fixer-upper\s+to\s+sell|as\s+an\s+investment)",
                       re.IGNORECASE)
_TRAVEL_NEAR = re.compile(r"\b(?:for\s+(?:a|the|two|three|four|five|\d+)\s+(?:days?|nights?|weeks?|weekend)|on\s+(?:holiday|"
                          r"vacation|a\s+trip|business)|for\s+(?:a\s+)?(?:holiday|vacation|trip|conference|wedding|visit)|"
                          r"hotel|airbnb)\b", re.IGNORECASE)


def _name(s: Sentence, pos: int):
    piece = take_proper(s.text, pos, s.limit(pos), allow_lower=False)
    if piece is None or piece.name.split()[0].lower() in STOP_NAMES | REJECT_PLACE:
        return None
    return piece


def _schoolish(name: str) -> bool:
    return SCHOOL_WORD.search(name) is not None or re.search(r"\b(?:Institute|School|Academy)\b", name) is not None


def _state(s: Sentence, m: re.Match[str], predicate: str, piece, importance: float, verb: str) -> list[Draft]:
    name = strip_article(piece.name)
    return [Draft(s.speaker, predicate, name, f"{s.speaker} {verb} {piece.said}", "state", importance, True,
                  span=match_span(m, piece.end))]


def works_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = _name(s, m.end())
    if org is None or not employer_ok(org) or about_someone_else(s, m.start()) or ended_here(s, m, False):
        return []
    return _state(s, m, "WORKS_AT", org, WORK, "works at")


def time_in_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = _name(s, m.end())
    if org is None or not employer_ok(org) or about_someone_else(s, m.start()):
        return []
    if _schoolish(org.name):
        return _state(s, m, "STUDIES_AT", org, WORK, "studies at")
    return _state(s, m, "WORKS_AT", org, WORK, "works at")


def hired_me(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = _name(s, m.start("org"))
    if org is None or org.end > m.end("org") + 1 or not employer_ok(org) or _schoolish(org.name):
        return []
    return _state(s, m, "WORKS_AT", org, WORK, "was taken on by")


def studies_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    school = _name(s, m.end())
    if school is None or about_someone_else(s, m.start()) or ended_here(s, m, False):
        return []
    return _state(s, m, "STUDIES_AT", school, WORK, "studies at")


def transferred(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "transferred from X to Y": X ends (its study or its job, whichever is open) and Y
    begins, as a school when either name or the sentence says study, a job when it says work."""
    old = _name(s, m.end())
    if old is None or about_someone_else(s, m.start()):
        return []
    to = re.match(r"\s+to\s+(?:the\s+)?(?=[A-Z])", s.text[old.end:])
    new = _name(s, old.end + to.end()) if to else None
    if new is not None and (_schoolish(new.name) or _schoolish(old.name) or _STUDY_HINT.search(s.text)):
        slots, begins = ("STUDIES_AT",), _state(s, m, "STUDIES_AT", new, WORK, "studies at")
    elif new is not None and _WORK_HINT.search(s.text) and employer_ok(new):
        slots, begins = ("WORKS_AT",), _state(s, m, "WORKS_AT", new, WORK, "works at")
    else:
        return []  # neither a school nor a job by its words: the changes topic reads a plain swap
    return [Draft(s.speaker, p, strip_article(old.name), f"{s.speaker} left {old.said}", "end", WORK, True,
                  span=match_span(m, old.end), closes_only=True) for p in slots] + begins


def first_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    """A first day or week somewhere is a start there when it is over ("First week at X done!") or survived:
    a school by its name or the turn's study words, else an employer; never an event or a trip."""
    org = _name(s, m.end())
    if org is None or about_someone_else(s, m.start()) or _NOT_A_START.search(s.text):
        return []
    if not m[0].lower().startswith(("survived", "finished", "completed", "done", "got", "made")) and not _FIRST_DONE.match(
            s.text, org.end):
        return []
    if m["period"].lower() == "day" and not (_schoolish(org.name) or ORG_WORD.search(org.name) or _STUDY_HINT.search(s.turn)
                                             or _WORK_HINT.search(s.turn)):
        return []  # a first day somewhere may be a day out ("First day at Disneyland done!"): a week or a shift is not
    if _schoolish(org.name) or _STUDY_HINT.search(s.text):
        return _state(s, m, "STUDIES_AT", org, WORK, "studies at")
    return works_at(m, s)


def trade_for(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = _name(s, m.end())
    if org is None or _schoolish(org.name) or "'" in org.name:
        return []
    one_word = len(strip_article(org.name).split()) == 1 and not ORG_WORD.search(org.name)
    if one_word and m["trade"].lower() not in _TRADES_FOR_FIRMS_ONLY:
        return []
    return works_at(m, s)


_DEPARTMENT = re.compile(rf"(?:the\s+)?{DEPARTMENTS}$", re.IGNORECASE)


def years_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Nearly three years in Leeds and ...": a home, unless the name is a field of work ("ten years in Marketing")
    or an organisation ("three years in the Army", "two years in Barclays Bank")."""
    place = _name(s, m.end())
    if place is None or _DEPARTMENT.match(place.name) or ORG_WORD.search(place.name) or _schoolish(place.name):
        return []
    return lives_in(m, s)


def lives_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    place = _name(s, m.end())
    if place is None or about_someone_else(s, m.start()) or _TRAVEL_NEAR.search(s.text, m.start()):
        return []
    return _state(s, m, "LIVES_IN", place, HOME, "lives in")


_BOUGHT = re.compile(r"\b(?:bought|purchased|closed\s+on)\b", re.IGNORECASE)
_MOVING = re.compile(r"\b(?:left|moved|moving|relocated|relocating|sold\s+up|upped\s+sticks|settled)\b", re.IGNORECASE)


def i_am_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I'm in Leeds and ..." opening a sentence is a home unless the turn says trip, stay or errand
    ("while I'm in Munich" never matches: the phrase must open the sentence)."""
    place = _name(s, m.end())
    if place is None or _NOT_A_PLACE.match(place.name) or _STAY.match(s.text, place.end) or _TRAVEL_WORD.search(s.text):
        return []
    return lives_in(m, s)


_TRAVEL_WORD = re.compile(r"\b(?:trip|travel\w*|holiday|vacation|visit\w*|hotel|hostel|airbnb|conference|layover|"
                          r"sightseeing|tourist|itinerary|flight|flew|landed|honeymoon|backpacking)\b", re.IGNORECASE)


_FIRST_PERSON = re.compile(r"\b(?:I|my|our|we|me|us)\b|\b(?:I|we)'", re.IGNORECASE)


_OTHERS_HOME = re.compile(r"\b(?:my|our)\s+\w+'s\b|\b(?:his|her|their)\s+(?:[a-z-]+\s+)?(?:place|flat|house|home|apartment)\b",
                          re.IGNORECASE)


def upkeep_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    if _FIRST_PERSON.search(f"{s.before} {s.text}") is None or _NOT_HOME.search(s.turn) or _TRAVEL_WORD.search(s.turn):
        return []
    if _OTHERS_HOME.search(s.turn):
        return []
    return lives_in(m, s)


# the place a turn named before "been here": after in/from/around, capitalised, or lower-case in an all-lower-case turn
_NAMED_PLACE = re.compile(r"\b(?:in|from|around|near|outside|of)\s+(?P<place>(?-i:[A-Z][a-z]+(?:[\s-][A-Z][a-z]+)?)|[a-z]{3,})"
                          r"(?=\s*(?:[,.;:!?]|$|\s+(?:without|and|but|with|for|on|at|by|so|or|is|was|that|this|because)\b))")
_NOT_PLACE_WORDS = frozenset("""home work school town scratch bed time here there now then today tomorrow yesterday
    everywhere anywhere somewhere nowhere outside inside abroad overseas memory hand hands bed advance general
    particular fact mind life public person private total stock order case place line detail course""".split())
_CAME_HERE = re.compile(r"\b(?:moved|came|flew|relocated|emigrated|drove|arrived|immigrated)\b[^.!?]{0,30}\b(?:here|over)\b",
                        re.IGNORECASE)


def been_here(m: re.Match[str], s: Sentence) -> list[Draft]:
    before = f"{s.before} {s.text[:m.start()]}"
    if _CAME_HERE.search(s.turn) or _TRAVEL_WORD.search(s.turn) or about_someone_else(s, m.start()):
        return []
    lower_turn = not re.search(r"[A-Z]", s.turn)
    names = [x["place"] for x in _NAMED_PLACE.finditer(before)
             if (x["place"][:1].isupper() or lower_turn) and x["place"].lower() not in STOP_NAMES | REJECT_PLACE | _NOT_PLACE_WORDS]
    if not names:
        return []
    name = " ".join(w[:1].upper() + w[1:] for w in names[-1].split())
    return [Draft(s.speaker, "LIVES_IN", name, f"{s.speaker} lives in {name}", "state", HOME, True,
                  span=match_span(m, m.end()))]


def rents_in(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "I rent a studio in X" is a home; a bought one only when a household buys it ("we just closed on a
    bungalow in X") or with a move in the sentence ("left NYC and bought a house in Y"): one person's purchase
    may be let or a second home, a couple's rarely is."""
    bought = _BOUGHT.search(m[0])
    if _NOT_HOME.search(s.text) or (bought and not _MOVING.search(s.text) and not m[0].lower().startswith("we")):
        return []
    return lives_in(m, s)


def with_org(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = _name(s, m.end())
    if org is None or not ORG_WORD.search(org.name) or not _NOW_WORD.match(s.text[org.end:]):
        return []
    return works_at(m, s)


def now_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    org = _name(s, m.end())
    if org is None or about_someone_else(s, m.start()):
        return []
    if _schoolish(org.name) or _STUDY_HINT.search(s.text):
        return _state(s, m, "STUDIES_AT", org, WORK, "studies at")
    if _WORK_HINT.search(s.text) and employer_ok(org):
        return _state(s, m, "WORKS_AT", org, WORK, "works at")
    return []


def time_into(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "three weeks into the new gig at X" is a job at X, "two months into my masters at X" a course there."""
    org = _name(s, m.end())
    if org is None or about_someone_else(s, m.start()):
        return []
    if m["course"]:
        return _state(s, m, "STUDIES_AT", org, WORK, "studies at")
    return _state(s, m, "WORKS_AT", org, WORK, "works at") if employer_ok(org) else []


_STUDENT_ROLE = re.compile(r"\bother\s+(?:students|grads|freshers|freshmen|first-years)\b")
_STAFF_ROLE = re.compile(r"\bother\s+(?:staff|nurses|teachers|interns|engineers|developers|doctors|analysts|newbies|new\s+starters|"
                         r"new\s+hires|trainees|apprentices)\b")


def member_at(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "everyone else at X", "the other nurses at X": the speaker is one of X's people, a student by the role or the
    turn's study words or the school's name, staff only by the role (customers are "everyone else" too); nothing on a trip
    or at an event."""
    org = _name(s, m.end())
    if org is None or about_someone_else(s, m.start()) or _TRAVEL_WORD.search(s.turn) or _NOT_A_START.search(org.name):
        return []
    role = m[0].lower()
    if _STUDENT_ROLE.search(role) or (not _STAFF_ROLE.search(role) and (_schoolish(org.name) or _STUDY_HINT.search(s.turn))):
        return _state(s, m, "STUDIES_AT", org, WORK, "studies at")
    if _STAFF_ROLE.search(role) and employer_ok(org):  # "everyone else at X" with work words may be customers
        return _state(s, m, "WORKS_AT", org, WORK, "works at")
    return []


def gerund_change(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Transferring to X was the right call": a change the speaker made, said as the subject of a past judgement
    ("was", "has been", "turned out"); never a plan, a wish or a regret ("would be", "was a mistake")."""
    org = _name(s, m.end())
    if org is None or about_someone_else(s, m.start()) or not _DONE_CHANGE.match(s.text, org.end):
        return []
    if _NOT_DONE.search(s.text, m.start(), s.clause(m.start(), org.end)[1]):
        return []
    if m["verb"].lower() in ("moving", "relocating"):
        return [] if _NOT_A_PLACE.match(org.name) else lives_in(m, s)
    if _schoolish(org.name) or _STUDY_HINT.search(s.turn):
        return _state(s, m, "STUDIES_AT", org, WORK, "studies at")
    if _WORK_HINT.search(s.turn) and employer_ok(org):
        return _state(s, m, "WORKS_AT", org, WORK, "works at")
    return []


RULES: tuple[Rule, ...] = (
    Rule(WORK_DEPT, works_at), Rule(TIME_IN_AT, time_in_at, False), Rule(YEARS_DOING, time_in_at, False), Rule(HIRED_ME, hired_me, False),
    Rule(STUDENT_AT, studies_at), Rule(QUALIFICATION_AT, studies_at), Rule(ENROLLED_AT, studies_at),
    Rule(TRANSFERRED, transferred), Rule(SINCE_MOVE, lives_in, False), Rule(NOW_THAT_IN, lives_in, False),
    Rule(NOW_THAT_AT, now_at, False), Rule(WITH_ME_IN, lives_in, False), Rule(RENT_IN, rents_in),
    Rule(UPKEEP_IN, upkeep_in), Rule(BEEN_HERE, been_here, False), Rule(YEARS_IN, years_in, False),
    Rule(LIVING_IN, lives_in), Rule(WITH_ORG_NOW, with_org), Rule(FIRST_AT, first_at, False),
    Rule(I_AM_IN, i_am_in),
    Rule(TRADE_FOR, trade_for), Rule(TRADE_AT, works_at), Rule(TIME_INTO, time_into, False),
    Rule(WORK_SEASON, works_at, False), Rule(MEMBER_AT, member_at, False), Rule(GERUND_CHANGE, gerund_change),
)
# what a question takes for granted: "Can you plan a weekend for friends staying with me in Halifax?"
QUESTION_RULES: tuple[Rule, ...] = (Rule(WITH_ME_IN, lives_in, False), Rule(WORK_DEPT, works_at, False),
                                    Rule(LIVING_IN, lives_in, False),
                                    Rule(STUDENT_AT, studies_at, False), Rule(TIME_INTO, time_into, False),
                                    Rule(MEMBER_AT, member_at, False), Rule(UPKEEP_IN, upkeep_in, False))
