"""Changes said obliquely: idioms of leaving, ending, losing and starting, per topic.

People rarely say "I no longer work at X"; they "handed in their notice", "put in
two weeks", "got made redundant", "called it quits", "found the dog a new home",
"got rid of the Subaru", "came off keto". Each topic here is a word list of such
idioms around one object slot, read by one handler per shape:

- an ending whose object names what ended ("my last day at Mercy General", "had
  Biscuit put to sleep", "the Yamaha went to a church") closes the open fact of
  that object and is dropped otherwise (``closes_only``). When the idiom does not
  say which slot ("moved on from Fernhill", "left Glasgow behind", "said goodbye
  to X") it is drafted for each slot it may close (home, work, study): only the
  one whose open fact holds that name closes. Precision comes from the graph, not
  from guessing the slot.
- an ending that names no value ("I'm single again", "back on meat since the
  fall", "not following any diet anymore") closes the one open fact of its slot
  (``ends_any``), and nothing when there is none or several.
- a beginning said sideways ("we've been in Bristol since August", "headed south
  to Tucson", "Transferred over to McGill", "I've been seeing someone new, Hannah",
  "been driving a secondhand Prius") drafts the new state.
"""

from __future__ import annotations

import re

from graphmem.ingest.rules.drafts import (
    FAMILY, HEALTH, HOME, LIKE, OWN, PET, WORK, Draft, Rule, Sentence, employer_ok, match_span)
from graphmem.ingest.rules.grammar import DWELLINGS, NAME, RELATIONS, STOP_NAMES, alt, rule
from graphmem.ingest.rules.health import DIET_NORMAL, DIET_WORDS, DIETS
from graphmem.ingest.rules.hobbies import NOT_A_HOBBY, HOBBY_NOUNS, PASTIME_NAMES, activity_name
from graphmem.ingest.rules.pets import PETS
from graphmem.ingest.rules.preferences import category
from graphmem.ingest.rules.presupposed import BRAND, BRANDS, MODEL_MARK, about_someone_else
from graphmem.ingest.rules.text import REJECT_PLACE, strip_article, take_proper, to_gerund
from graphmem.ingest.rules.work import SCHOOL_WORD

__all__ = ["RULES"]

_I = r"\b(?:I|we)(?:'ve|'d|'m|'re|\s+have|\s+had|\s+am|\s+are)?\s+(?:(?:just|finally|recently|officially|already|also|"
_I += r"then|eventually|actually|basically|really|properly|seriously|now|kind\s+of|sort\s+of)\s+)*"
_OBJ = r"(?=(?:the\s+)?[A-Z])"  # a capitalised object follows


# ------------------------------------------------------------------ leaving a place, a job or a school

# the idiom says it was a job
WORK_ENDS = alt("""
handed in my notice at|handed in my notice to|handed my notice in at|handed in my resignation at|
handed in my resignation to|put in my notice at|put in my two weeks at|put in my two weeks' notice at|
put in my two weeks notice at|gave my notice at|gave notice at|gave my two weeks at|turned in my notice at|
turned in my resignation at|tendered my resignation at|resigned my position at|resigned my post at|
quit my job at|left my job at|left my role at|left my position at|left my post at|packed in my job at|
jacked in my job at|chucked in my job at|walked away from my job at|stepped down at|stepped down from|
got let go from|was let go from|got let go by|was let go by|got laid off at|was laid off at|got made redundant from|
was made redundant from|got made redundant at|was made redundant at|been made redundant from|got made redundant by|
got fired from|was fired from|got sacked from|was sacked from|got the sack from|got canned from|got axed from|
got pushed out of|was pushed out of|was forced out of|got forced out of|retired from|took early retirement from|
took redundancy from|took voluntary redundancy from|clocked out of|served my notice at|worked my last shift at|
did my last shift at|cleared out my desk at|cleared my desk at|handed in my badge at|handed back my badge at|
turned in my badge at|handed in my lanyard at|handed in my pass at|handed in my keys at|handed back my keys at|
handed in my laptop at|handed back my laptop at|hung up my apron at|hung up my uniform at|worked my last day at|
did my last day at|quit working at|quit working for|stopped working at|stopped working for|clocked off for the last time at
""")
# the organisation first: "Copper Kettle let me go", "Acme laid me off"
WORK_ENDED_BY = alt("""
let me go|laid me off|fired me|sacked me|made me redundant|got rid of me|cut me loose|didn't renew my contract|
did not renew my contract|ended my contract|terminated my contract|terminated me|showed me the door|
let me off|dropped me|pushed me out|forced me out
""")
STUDY_ENDS = alt("""
dropped out of|dropped out from|withdrew from|flunked out of|got kicked out of|was kicked out of|got expelled from|
was expelled from|quit my course at|left my course at|quit my degree at|left my degree at|quit my program at|
completed my degree at|completed my studies at|finished my degree at|finished my studies at|finished my course at|
got my degree from|got my diploma from|got my masters from|got my master's from|got my phd from|
earned my degree from|earned my diploma from|graduated out of|deferred my place at|deferred my offer at|
deferred my course at|deferred my degree at|deferred my studies at|deferred from|suspended my studies at|
interrupted my studies at|took a leave of absence from|took a year out from|took a gap year from|dropped my course at|
quit my studies at|left my studies at|gave up my place at
""")
# could be a home, a job or a school: drafted for each, only the open one closes
ANY_ENDS = alt("""
moved on from|finished up at|finished at|wrapped up at|wrapped things up at|my last day at|my final day at|
said goodbye to|said my goodbyes to|bid farewell to|parted ways with|parted company with|am done at|'m done at|
am finished at|'m finished at|am out of|'m out of|are out of|'re out of|walked out on|packed up and left|
upped sticks from|waved goodbye to|bade farewell to
""")
_LEFT_BEHIND = r"\b(?:left|leaving|put)\s+(?P<obj>(?-i:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3}))\s+behind\b"
HOME_ENDS = alt("""
gave up my flat in|gave up our flat in|gave up my apartment in|gave up our apartment in|gave up my place in|
gave up our place in|gave up the flat in|gave up the apartment in|sold our house in|sold my house in|
sold our place in|sold my place in|sold the house in|moved out of our place in|moved out of my place in|
handed back the keys in|handed in the keys in|gave notice on our flat in|gave notice on my flat in|
said goodbye to our home in|moved away from|packed up and left|upped sticks from|moved out of|finally left|
moved out from|cleared out of
""")
_LEASE_ENDED = (r"\b(?:the|our|my)\s+(?:lease|tenancy|rental|contract)\s+(?:on|for|in)\s+(?:(?:our|my|the)\s+)?"
                r"(?P<obj>(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))(?:\s+(?:flat|apartment|place|house|home))?\s+"
                r"(?:ran\s+out|ended|expired|was\s+up|finished|came\s+to\s+an\s+end)\b")

_HOME_LEFT = (r"\b(?:moved\s+out\s+of|left|gave\s+up|handed\s+back\s+the\s+keys\s+(?:to|on)|said\s+goodbye\s+to)\s+"
              r"(?:my|our|the)\s+(?:(?:old|little|tiny|first)\s+)?(?P<obj>(?-i:(?:(?:St|Mt|Ft)\.\s)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\s+"
              r"(?:flat|apartment|place|house|home|studio|condo|rental|bedsit|loft|digs)\b")
# the same endings with the place after the home: "handed back the keys to my flat in Leeds", "moved out of our house in
# Didsbury", "sold my two-bed in Hove"; any dwelling word, a few words between ("my tiny rented flat in"); plain "left"
# is no ending here ("I left my flat in Leeds at eight")
_HOME_LEFT_IN = (r"\b(?:moved\s+out\s+of|gave\s+up|sold|gave\s+notice\s+on|cleared\s+out\s+of|said\s+goodbye\s+to|"
                 r"(?:handed|gave|turned)\s+(?:back|in|over)\s+the\s+keys\s+(?:to|on|of|for)|"
                 r"(?:returned|handed\s+over)\s+the\s+keys\s+(?:to|on|of|for))\s+"
                 rf"(?:my|our|the)\s+(?:[a-z-]+\s+){{0,2}}?{DWELLINGS}\s+in\s+"
                 r"(?P<obj>(?-i:(?:(?:St|Mt|Ft)\.\s)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))\b")
_LEFT_FOR_GOOD = r"\bleft\s+(?P<obj>(?-i:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3}))\s+(?:for\s+good|for\s+ever|forever|and\s+(?:never|moved|relocated|headed|bought|settled))\b"

# ------------------------------------------------------------------ arriving at a place, a job or a school

_PLACE_AFTER = r"\s+(?=[A-Z])"
_DIRECTION = r"(?:(?:up|down|over|out|back|south|north|east|west|across|home|all\s+the\s+way|cross-country)\s+)*"
HOME_BEGINS = (
    rf"{_I}(?:(?:packed\s+up\s+and|upped\s+sticks\s+and|sold\s+up\s+and|sold\s+(?:the|our|my)\s+(?:house|home|flat|place|"
    rf"condo|apartment)\s+and)\s+(?:headed|went|moved|drove|came)|moved|relocated|"
    rf"upped\s+sticks|decamped|emigrated|made\s+the\s+move|made\s+the\s+jump|took\s+the\s+plunge\s+and\s+moved)\s+"
    rf"{_DIRECTION}to{_PLACE_AFTER}"
    # a journey made to live near family is a move: "we came down to Tucson to be closer to our daughter"
    rf"|{_I}(?:came|went|headed|drove)\s+{_DIRECTION}to{_PLACE_AFTER}(?=[^,.;!?]{{0,40}}\s+to\s+be\s+(?:closer|nearer|near)\s+"
    rf"to\s+(?:my|our)\s+)"
    rf"|{_I}(?:headed|went|moved|drove)\s+(?:(?:up|down|out|back|all\s+the\s+way)\s+)?(?:south|north|east|west|"
    rf"north-?east|north-?west|south-?east|south-?west|cross-country|across\s+the\s+country)\s+to{_PLACE_AFTER}"
    rf"|\b(?:job|work|transfer|posting|company|career|studies|degree)\s+(?:took|brought|moved|sent|relocated)\s+(?:us|me)\s+"
    rf"{_DIRECTION}to{_PLACE_AFTER}"
    rf"|{_I}(?:been\s+)?(?:now\s+)?(?:renting|living|settled|based|staying|house-sitting)\s+"
    rf"(?:(?:a|an|the|our|my|this|that)\s+(?:[a-z-]+\s+){{0,3}}?{DWELLINGS}\s+)?"
    rf"(?:(?:just\s+)?(?:outside|near|in)\s+)(?=[A-Z])"
    rf"|{_I}(?:been\s+)?(?:now\s+)?(?:living\s+)?in{_PLACE_AFTER}(?=[^,.;!?]{{0,40}}?\b(?:since\b|for\s+(?:\w+\s+)?"
    rf"(?:years?|months?|a\s+year|ages|a\s+while|decades?)\b|(?<!right\s)now\b|these\s+days\b))"
    rf"|{_I}(?:landed|ended\s+up|wound\s+up|set\s+up\s+home|put\s+down\s+roots)\s+"
    rf"in{_PLACE_AFTER}"
    rf"|\b(?:we're|we\s+are|I'm|I\s+am)\s+(?:now\s+)?(?:proper\s+|official\s+|officially\s+)?(?:residents|locals|a\s+resident|"
    rf"a\s+local)\s+of{_PLACE_AFTER}"
)
WORK_BEGINS = (
    rf"{_I}(?:landed|got|accepted|took|started)\s+(?:a|an|the|my)\s+(?:new\s+)?(?:[a-z-]+\s+)?(?:role|job|position|post|"
    rf"gig|contract|placement)\s+(?:at|with){_PLACE_AFTER}"
    rf"|{_I}(?:been\s+)?(?:now\s+)?(?:doing\s+(?:[a-z-]+\s+){{0,2}}(?:work|shifts|contracts?)|freelancing|"
    rf"contracting|consulting|temping|working\s+(?:full[\s-]time|part[\s-]time|remotely|nights))\s+for{_PLACE_AFTER}"
    rf"|{_I}(?:been\s+)?(?:now\s+)?(?:employed\s+)?(?:on\s+the\s+payroll|on\s+staff|on\s+the\s+team)\s+at{_PLACE_AFTER}"
    rf"|{_I}been\s+(?:now\s+)?at{_PLACE_AFTER}(?=[^,.;!?]{{0,40}}?\b(?:since\b|for\s+(?:\w+\s+)?"
    rf"(?:years?|months?|weeks?|a\s+year)\b))"
)
STUDY_BEGINS = (
    rf"(?:{_I}|^)(?:transferred|switched|moved|changed)\s+(?:over\s+|schools\s+|unis\s+|universities\s+|colleges\s+)?"
    rf"(?:to|into){_PLACE_AFTER}"
    rf"|{_I}(?:got|been)\s+(?:accepted|admitted|in)\s+(?:to|into|at){_PLACE_AFTER}"
    rf"|{_I}(?:enrolled|matriculated)\s+(?:at|in){_PLACE_AFTER}"
    # "I'm at the University of Ottawa now": a school's name only (the handler checks), never "at Starbucks"
    rf"|{_I}(?:been\s+)?(?:now\s+)?(?:at|studying\s+at){_PLACE_AFTER}(?=[^,.;!?]{{0,50}}?\b(?:now|since|these\s+days)\b)"
)

_STUDY_QUIT = (r"\b(?:I|we)(?:'ve|\s+have)?\s+(?:(?:just|finally|officially|actually)\s+)*(?:quit|dropped\s+out\s+of|withdrew\s+from|"
               r"pulled\s+out\s+of|packed\s+in|jacked\s+in|left|deferred)\s+(?:uni|university|college|grad\s+school|my\s+course|"
               r"my\s+degree|my\s+studies|my\s+program|my\s+programme|my\s+masters|my\s+master's|my\s+phd|my\s+PhD)\b"
               r"(?!\s+(?:at|in|from)\s+(?-i:[A-Z]))|\b(?:I|we)(?:'ve|\s+have)?\s+(?:(?:just|finally|officially)\s+)*dropped\s+out\b"
               r"(?!\s+(?:of|from)\b)")

# no employer or school named: "I got laid off in May", "I'm between jobs", "I graduated in June!" end the one open job
# or course (`ends_any`), and nothing when there is none or several
_WHEN_WORD = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|"
              r"Wednesday|Thursday|Friday|Saturday|Sunday|Christmas|Easter)\b")
_NAMED_AFTER = rf"(?!\s+(?:from|at|by|with|in)\s+(?!{_WHEN_WORD})(?-i:[A-Z]))"
_WORK_NONE = (rf"\b(?:I'm|I\s+am|I've\s+been|I\s+have\s+been)\s+(?:(?:now|currently|officially|still|happily)\s+)*(?:between\s+jobs|"
              rf"unemployed|out\s+of\s+work|jobless|on\s+the\s+dole|retired)\b(?!\s+(?:teacher|nurse|doctor)\b){_NAMED_AFTER}"
              rf"|\b(?:I|we)\s+(?:just\s+|finally\s+|eventually\s+)?(?:got|was|were|have\s+been|'ve\s+been)\s+(?:laid\s+off|made\s+redundant|"
              rf"let\s+go|fired(?!\s+up)|sacked)\b{_NAMED_AFTER}"
              rf"|\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|officially\s+)?(?:retired|quit\s+my\s+job|lost\s+my\s+job|left\s+my\s+job|"
              rf"handed\s+in\s+my\s+notice|resigned)\b{_NAMED_AFTER}"
              # what staff give back on their last day: "Handed in my badge at the end of November"
              rf"|\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|officially\s+)?(?:handed|turned|gave)\s+(?:in|back)\s+my\s+"
              rf"(?:(?:staff|work|security|office|ID|name|hospital)\s+)?(?:badge|lanyard|notice|resignation|keycard|key\s+card)\b{_NAMED_AFTER}"
              rf"|\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|officially\s+)?(?:handed|turned|gave)\s+(?:in|back)\s+my\s+"
              rf"(?:staff|work|security|office)\s+(?:pass|laptop|phone|uniform)\b{_NAMED_AFTER}"
              rf"|\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|officially\s+)?hung\s+up\s+my\s+(?:apron|scrubs|stethoscope|"
              rf"name\s+badge|uniform|hard\s+hat|hi-vis|whistle|(?:keys|tools|briefcase|headset)(?=\s+for\s+good\b))\b{_NAMED_AFTER}"
              # "I'm not working at the moment": no job now (not "today": a day off)
              r"|\bI(?:'m|\s+am)\s+(?:currently\s+)?not\s+working\s+(?:at\s+the\s+moment|these\s+days|anymore|any\s+more|for\s+now)\b")
_STUDY_NONE = (rf"\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|officially\s+)?graduated\b(?!\s+(?:from|at|high|school)\b)"
               r"|\bI(?:'m|\s+am)\s+(?:now\s+|officially\s+|finally\s+)?(?:a\s+(?:uni\s+|university\s+|college\s+)?graduate|"
               r"a\s+grad|done\s+with\s+(?:uni|university|college|my\s+degree|my\s+studies))\b(?!\s+(?:of|from|at)\b)"
               rf"|\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|officially\s+)?(?:finished|completed)\s+(?:uni|university|college|"
               rf"my\s+degree|my\s+studies|my\s+masters|my\s+master's|my\s+phd|my\s+PhD|my\s+course)\b"
               rf"{_NAMED_AFTER}"
               # "Results came through, passed with merit", "I passed my MSc": the one open course is over
               r"|(?:^|[,;:]\s+|\bI(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|officially\s+)?)passed\s+(?:my\s+(?:degree|masters|master's|"
               r"MSc|MA|MBA|MRes|PhD|doctorate|dissertation|thesis|viva|finals)\b|(?:it\s+|the\s+(?:degree|course)\s+)?with\s+"
               r"(?:merit|distinction|honours|honors|flying\s+colou?rs|a\s+(?:first|2:1|2:2|third|pass)))"
               # "I'm no longer a student", "I'm not a student anymore": the one open course ends
               r"|\bI(?:'m|\s+am)\s+(?:no\s+longer\s+a\s+student\b|not\s+a\s+student\s+(?:anymore|any\s+more)\b)")

# ------------------------------------------------------------------ partners

_PARTNER_NAME = rf"(?P<obj>{NAME})"
PARTNER_ENDS_WE = alt("""
went our separate ways|have gone our separate ways|are going our separate ways|parted ways|have parted ways|
called it quits|have called it quits|called it a day|called time on things|called time on it|are done|are through|
are finished|are over|are no more|have split up|split up|broke up|have broken up|ended things|
ended it|broke it off|have broken it off|called off the engagement|called off our engagement|called off the wedding|
called the whole thing off|called it off|are separating|are getting divorced|got divorced|are divorced|
separated|have separated|are taking a break|are on a break|decided to end things|decided to split|fizzled out|
have fizzled out|petered out|drifted apart|have drifted apart|grew apart|have grown apart|ran our course|have run our course
""")
PARTNER_ENDS_THEY = alt("""
broke it off|ended it|ended things|called it off|called off the engagement|called off the wedding|walked out|
moved out|left me|dumped me|ditched me|ghosted me|cheated on me|packed his bags|packed her bags|packed their bags|
broke my heart|walked out on me|left for someone else|served me papers|filed for divorce|asked for a divorce|
wants a divorce|wanted a divorce|moved on|called time on us|ended our engagement|ended our relationship|
broke off our engagement|broke off the engagement
""")
PARTNER_ENDS_I = alt("""
dumped|ditched|ended things with|broke it off with|broke things off with|split from|split with|
walked out on|divorced|kicked out|called it quits with|parted ways with|called off my engagement to|
called off the engagement with|stopped seeing|finished with|ended it with|separated from|moved out on
""")
_DIVORCE_FROM = rf"\b(?:my|our|the)\s+(?:messy\s+|long\s+|final\s+)?divorce\s+(?:from|with)\s+{_PARTNER_NAME}\b"
_EX_NAMED = (rf"\b(?:my|our)\s+ex(?:-(?:husband|wife|partner|boyfriend|girlfriend|fiancee?|fiancée)|\s+(?:husband|wife|partner|"
             rf"boyfriend|girlfriend))?,?\s+{_PARTNER_NAME}\b(?!')|\b(?P<obj2>{NAME})(?:'s|\s+is)\s+(?:my|an)\s+ex\b")
_SINGLE = (r"\b(?:I'm|I\s+am|I've\s+been|I\s+have\s+been)\s+(?:now\s+|officially\s+|newly\s+|back\s+to\s+being\s+|"
           r"happily\s+|suddenly\s+)*(?:single|a\s+single\s+(?:man|woman|guy|girl|gal|person|dad|mum|mom|parent))"
           r"(?:\s+(?:again|now|for\s+the\s+first\s+time|these\s+days))?\b|\bback\s+on\s+the\s+(?:dating\s+)?apps\b"
           r"|\bback\s+on\s+the\s+market\b"
           # "I'm not seeing anyone at the moment": no partner now (a plain "I'm not seeing anyone" could be about today)
           r"|\bI(?:'m|\s+am)\s+not\s+(?:seeing|dating|with)\s+anyone\s+(?:at\s+the\s+moment|these\s+days|anymore|any\s+more|"
           r"right\s+now|now|since)\b")
# "since the divorce came through", "our divorce was finalised in May": the marriage is over, whoever it was with
_DIVORCE_DONE = (r"\b(?:the|my|our)\s+(?:messy\s+|long\s+)?divorce\s+(?:finally\s+|officially\s+|just\s+)?"
                 r"(?:came\s+through|went\s+through|(?:was|is|got|has\s+been)\s+(?:finali[sz]ed|final|through|done|official|"
                 r"granted|settled))\b")
# "Things with Tomasz fizzled out before Christmas", "it's over with Sam": the relationship, named by its other half
_THINGS_WITH = (rf"\bthings\s+(?:with|between)\s+(?:me\s+and\s+)?{_PARTNER_NAME}(?:\s+and\s+(?:me|I))?\s+"
                rf"(?:(?:just|finally|eventually|kind\s+of|sort\s+of|sadly|slowly|quietly|have|had)\s+)*(?:fizzled(?:\s+out)?|"
                rf"petered\s+out|ended|fell\s+apart|didn't\s+work\s+out|did\s+not\s+work\s+out|went\s+south|"
                rf"(?:are|were)\s+(?:over|done|finished)|came\s+to\s+an\s+end|ran\s+their\s+course|cooled\s+off|didn't\s+last)\b"
                rf"|\b(?:it's|it\s+is|it's\s+all)\s+over\s+(?:with|between\s+me\s+and)\s+(?P<obj2>{NAME})\b"
                # the same said verb first: "since things ended with Sam", "after things fell apart with Tomasz"
                rf"|\bthings\s+(?:(?:just|finally|eventually|sadly|quietly)\s+)*(?:ended|fell\s+apart|fizzled\s+out|"
                rf"petered\s+out|didn't\s+work\s+out|went\s+south|cooled\s+off)\s+(?:with|between\s+me\s+and)\s+"
                rf"(?P<obj3>{NAME})\b")
# "Hannah and I have been together about six weeks now": a couple by its length, not "together all day" or "at the office";
# or by the anniversary it reaches: "Jordan and I hit one year together next month", "celebrated two years together"
_COUNT = r"(?:a|an|\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_YEARS_TOGETHER = (rf"(?:hit|hits|hitting|reach|reached|reaching|celebrate[ds]?|celebrating|mark|marked|marking)\s+"
                   rf"(?:{_COUNT}|our\s+first|our\s+second|our\s+third)\s+(?:years?|months?)\s+together(?!\s+(?:at|in|on)\s+(?:the|this|our|my)\b)")
_BEEN_TOGETHER = (rf"{_YEARS_TOGETHER}|been\s+(?:together|a\s+couple|an\s+item)(?=\s*(?:[,.;!?]|$)|\s+(?:now|since|(?:for\s+)?(?:(?:about|nearly|"
                  r"almost|over|around|roughly|just\s+over|just\s+under)\s+)?(?:a|an|\d+|one|two|three|four|five|six|seven|eight|"
                  r"nine|ten|eleven|twelve|a\s+few|a\s+couple\s+of|several|many)\s+(?:weeks?|months?|years?|decades?))\b)")
PARTNER_BEGINS = (
    rf"{_I}(?:been\s+|started\s+|begun\s+|now\s+)*(?:seeing|dating|going\s+out\s+with|with|together\s+with)\s+"
    rf"(?:(?:someone|somebody)(?:\s+new)?|a\s+(?:(?:really\s+|very\s+)?(?:lovely|great|nice|sweet|new|wonderful|kind|cute|"
    rf"funny)\s+)?(?:guy|girl|man|woman|person|lad|lass|doctor|nurse|teacher|chef|lawyer|musician|artist))"
    rf"(?:\s+since\s+[\w\s-]{{1,25}}?)?(?:,\s*|\s+(?:called|named)\s+)(?P<obj>{NAME})\b"
    rf"|\b(?:met|started\s+seeing|started\s+dating|fell\s+for|got\s+together\s+with)\s+(?:someone\s+new|someone|a\s+(?:guy|girl|"
    rf"man|woman))(?:,\s*|\s+(?:called|named)\s+)(?P<obj2>{NAME})\b"
    rf"|\bmet\s+(?P<obj4>{NAME})\b[^.;!?]{{0,60}}?\band\s+(?:we've|we\s+have|we're|we\s+are)\s+(?:been\s+)?(?:together|dating|"
    rf"a\s+couple|inseparable|an\s+item|going\s+out|official)\b"
    rf"|\b(?P<obj5>{NAME})\s+and\s+I\b[^.;!?]{{0,60}}?\bour\s+(?:\w+\s+)?(?:wedding\s+)?anniversary\b"
    rf"|\b(?P<obj3>{NAME})\s+and\s+I\s+(?:have\s+|had\s+)?(?:(?:just|finally|officially|recently)\s+)?(?:got\s+together|"
    rf"started\s+dating|started\s+seeing\s+each\s+other|have\s+been\s+dating|have\s+been\s+seeing\s+each\s+other|"
    rf"are\s+(?:now\s+)?(?:together|dating|an\s+item|official|a\s+thing|seeing\s+each\s+other|exclusive)|{_BEEN_TOGETHER})\b"
)

# ------------------------------------------------------------------ pets

PET_ENDS_BEFORE = alt("""
had to have|had to put|had to let|have had to put|have had to let|had|got|put|let|found|rehomed|re-homed|gave away|
gave up|said goodbye to|lost|buried|surrendered|handed over|returned|took back
""")
_PET_GONE_AFTER = alt("""
put to sleep|put down|euthanised|euthanized|go|a new home|a forever home|a good home|a loving home|
a better home|a new family|new owners|a farm|to a farm|over the rainbow bridge|away|up for adoption|back
""")
PET_ENDS_SUBJECT = alt("""
crossed the rainbow bridge|went over the rainbow bridge|crossed over|went to live with|went to live on|
went to a new home|went to a farm|ran away|ran off|flew off|flew away|got out and never came back|escaped|
flew out the window|flew out an open window|flew out of the window|flew out of an open window|flew out the door|
flew out of the door|slipped out the door|got out the door and never came back|
went missing|disappeared|didn't make it|did not make it|passed|passed on|passed away|died|was put down|
got put down|was put to sleep|was euthanised|was euthanized|was rehomed|got rehomed|was re-homed|is no longer with us|
isn't with us anymore|is not with us anymore|got hit by a car|was hit by a car|was taken by a fox|lives with
""")

# "We lost Pickles to kidney disease", "lost our old cat Mabel to cancer": a death said by its cause
_SPECIES = alt("|".join(PETS))
_LOST_TO = (rf"\b(?:we|I)(?:'ve|\s+have)?\s+(?:(?:just|sadly|finally|recently|tragically|suddenly|also)\s+)*lost\s+"
            rf"(?:(?:our|my|poor|old|sweet|little|dear|beloved|lovely|darling|{_SPECIES})\s+)*{_PARTNER_NAME}\s+to\s+"
            rf"(?:(?:a|an|the|his|her|their|old|sudden|long|short|nasty|aggressive)\s+)*(?-i:[a-z])")

# ------------------------------------------------------------------ things

_THING = (r"(?:(?:the|my|our|that|this)\s+(?:(?:old|trusty|beloved|ancient|little|poor)\s+)?)"
          r"(?P<obj>(?-i:[A-Za-z][\w-]*(?:\s+[A-Z0-9][\w-]*){0,2}))")
THING_ENDS_BEFORE = alt("""
got rid of|have got rid of|have gotten rid of|gotten rid of|sold|sold off|flogged|gave away|given away|donated|
traded in|part-exchanged|parted with|passed on|handed down|scrapped|wrote off|written off|totalled|totaled|crashed|
wrecked|lost|ditched|dumped|binned|recycled|retired|offloaded|unloaded|let go of|finally let go of|
said goodbye to|left|replaced
""")
THING_GONE_AFTER = alt("""
went to|has gone to|is going to|finally died|died|died on me|gave up the ghost|gave out|broke down for good|
is dead|is gone|is history|bit the dust|packed in|packed up|conked out|got stolen|was stolen|has been stolen|
got written off|was written off|got totalled|was totalled|got totaled|was totaled|got sold|was sold|has been sold|
got repossessed|was repossessed|is no more|went to the scrapyard|went for scrap|finally gave up|is on its way to
""")
_LEFT_ON = r"\b(?:left|lost|forgot)\s+(?:my|our)\s+(?P<obj>(?-i:[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*){0,2}))\s+(?:on|in|at)\s+(?:a|an|the)\s+"
_LEFT_ON += r"(?:train|bus|plane|flight|taxi|cab|tube|subway|uber|beach|airport|bar|pub|park)\b"
_BRAND_MODEL = BRAND + rf"(?-i:(?:{MODEL_MARK}|\s+[A-Z0-9][\w-]*){{0,2}})"
THING_BEGINS = (
    rf"{_I}(?:been\s+)?(?:driving|riding|playing|rocking)\s+(?:an?|my|our)\s+"
    rf"(?:(?:new|used|secondhand|second-hand|shiny|old|little|trusty|\d{{4}})\s+){{0,2}}"
    rf"(?P<obj>{_BRAND_MODEL})"
    rf"|\breplaced\s+(?:it|him|her|them|the\s+\w+|my\s+\w+)\s+with\s+(?:an?|the)\s+(?:new\s+|shiny\s+)?(?P<obj2>{_BRAND_MODEL})"
    # "put the money toward a Fujifilm X-T4", "used the cash to buy a Kindle": what a sale paid for
    rf"|\b(?:put|used|spent|threw|ploughed|plowed)\s+(?:(?:the|that|all\s+the|some\s+of\s+the)\s+)?(?:money|cash|proceeds|savings)"
    rf"(?:\s+(?:from|for)\s+(?:it|that|them|the\s+sale))?\s+(?:toward|towards|into|on)\s+(?:an?|the|my)\s+"
    rf"(?:(?:new|used|secondhand|second-hand|shiny|refurbished)\s+)?(?P<obj3>{_BRAND_MODEL})"
    rf"|\bused\s+(?:the\s+money|the\s+cash|the\s+proceeds|it|that)\s+to\s+(?:buy|get|pay\s+for)\s+(?:an?|the|my)\s+"
    rf"(?:(?:new|used|secondhand|second-hand|shiny|refurbished)\s+)?(?P<obj4>{_BRAND_MODEL})"
)

_SWAPPED_FOR = (rf"\b(?:swapped|traded(?:\s+in)?|exchanged|part-exchanged|sold|replaced)\s+{_THING}(?:\s+in)?\s+(?:for|with)\s+(?:an?|the|my)\s+"
                rf"(?:(?:new|used|secondhand|second-hand|shiny|refurbished|brand\s+new|\d{{4}})\s+){{0,2}}(?P<obj2>{_BRAND_MODEL})")
# "traded the Canon in at the shop", "part-exchanged my Golf in June": the particle after the thing; "traded X in for Y"
# is `_SWAPPED_FOR`'s, and a lower-case object is no thing of one's own ("traded the stock in the morning")
_TRADED_IN = (r"\b(?:traded|part-exchanged)\s+(?:the|my|our)\s+(?:(?:old|trusty)\s+)?"
              r"(?P<obj>(?-i:[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*){0,2}))\s+in\b(?!\s+(?:for|with|exchange)\b)")
# a change of kind said with the new thing: "went mirrorless with a Fujifilm X-T5", "went electric with a Kia Niro"
_WENT_KIND = r"(?:electric|mirrorless|hybrid|digital|cordless|automatic|android|full-frame|full\s+frame)"
_GOT_BRAND = (rf"{_I}(?:got|have|own|picked\s+up|upgraded\s+to|treated\s+(?:myself|ourselves)\s+to|splashed\s+out\s+on|went\s+for|"
              rf"went\s+{_WENT_KIND}\s+with|"
              rf"invested\s+in)\s+(?:an?|the)\s+"
              rf"(?:(?:new|used|secondhand|second-hand|shiny|refurbished|brand\s+new|old|little|trusty|\d{{4}})\s+){{0,2}}"
              rf"(?P<obj>{_BRAND_MODEL})")

# ------------------------------------------------------------------ hobbies

HOBBY_LOST = alt("""
lost interest in|lost my interest in|lost the bug for|fell out of love with|got bored of|got bored with|
grew bored of|got tired of|grew tired of|burned out on|burnt out on|burned out of|went off|gone off|am over|'m over|
gave up on|packed in|jacked in|ditched|dropped|have dropped|have ditched|took a break from|am taking a break from|
'm taking a break from|stepped back from|moved on from|drifted away from|don't have time for|stopped doing|
fallen out of love with|grown bored of|grown bored with|gotten bored of|gotten bored with|gotten tired of|grown tired of|
gone right off|went right off|haven't touched|have not touched|haven't picked up|haven't done any|barely do any|
hardly do any|given up on|lost all interest in|dropped out of|stopped going to|pulled out of
""")
# the gear stands for the activity: "put the needles down", "hung up my boots", "sold my camera gear"
GEAR: dict[str, str] = {
    "needles": "knitting", "knitting needles": "knitting", "hook": "crochet", "crochet hook": "crochet",
    "brushes": "painting", "paintbrushes": "painting", "easel": "painting", "camera": "photography",
    "camera gear": "photography", "lenses": "photography", "racket": "tennis", "racquet": "tennis",
    "clubs": "golf", "golf clubs": "golf", "rod": "fishing", "fishing rod": "fishing", "board": "surfing",
    "surfboard": "surfing", "skateboard": "skateboarding", "skates": "skating", "football boots": "football",
    "gloves": "boxing", "boxing gloves": "boxing", "running shoes": "running",
    "trainers": "running", "climbing shoes": "climbing", "chalk bag": "climbing",
    "controller": "gaming",
    "sketchbook": "drawing", "pencils": "drawing", "wheel": "pottery", "clay": "pottery", "mat": "yoga",
    "yoga mat": "yoga", "weights": "weightlifting", "dumbbells": "weightlifting", "tent": "camping",
    "hiking boots": "hiking", "kayak": "kayaking", "skis": "skiing", "snowboard": "snowboarding",
    "dice": "gaming", "loom": "weaving", "sewing machine": "sewing",
}
_GEAR = "(?:" + "|".join(re.escape(g).replace(r"\ ", r"\s+") for g in sorted(GEAR, key=len, reverse=True)) + ")"
GEAR_DOWN = (rf"\b(?:put|laid|set|hung|packed|boxed|stashed)\s+(?:the|my|all\s+my)\s+(?P<gear>{_GEAR})\s+(?:down|away|up|aside)\b"
             rf"|\b(?:hung|packed|boxed)\s+up\s+(?:the|my)\s+(?P<gear2>{_GEAR})\b"
             rf"|\b(?:sold|gave\s+away|got\s+rid\s+of|donated)\s+(?:all\s+)?(?:of\s+)?(?:the|my)\s+(?:old\s+)?(?P<gear3>{_GEAR})"
             r"(?:\s+(?:gear|kit|stuff|equipment|collection))?\b"
             rf"|\b(?:the|my)\s+(?P<gear4>{_GEAR})\s+(?:haven't|hasn't|have\s+not|has\s+not)\s+(?:been\s+)?(?:out|used|touched|worn|"
             r"moved|seen\s+daylight)\b")
# "haven't bouldered since June", "haven't been to the climbing gym in months"
HAVENT_SINCE = (r"\b(?:haven't|have\s+not|hasn't|I\s+haven't)\s+(?:really\s+|actually\s+)?(?P<verb>[a-z]+ed|ran|run|swum|swam|rode|"
                r"ridden|sung|drawn|sewn|knit|skied|done\s+any\s+[a-z]+ing)\s+(?:at\s+all\s+|much\s+)?(?:since|in|for)\b"
                r"|\b(?:haven't|have\s+not|hasn't)\s+(?:been|gone|set\s+foot)\s+(?:back\s+)?(?:to|in|into)\s+(?:the|my|a)\s+"
                r"(?P<place_act>[a-z]+(?:\s+[a-z]+)?)\s+(?:gym|wall|club|class|classes|studio|pool|court|courts|range|rink|"
                r"dojo|track|centre|center|session|sessions|lessons|practice|group|meetup)\s+(?:since|in|for)\b")
# past forms of what people do for fun: "haven't talked in days" ends nothing
_HOBBY_PAST = frozenset("""
bouldered climbed cycled biked hiked knitted knit baked painted skated surfed swam swum ran played danced sung sang
fished golfed sewed sewn skied snowboarded practised practiced trained lifted rowed sketched drawn drew crocheted
gardened meditated journaled journalled kayaked canoed camped jogged boxed sparred fenced skateboarded scuba dived
dove sailed quilted whittled gamed streamed blogged vlogged photographed shot raced competed rode ridden run
""".split())
_IRREGULAR = {"ran": "running", "run": "running", "swum": "swimming", "swam": "swimming", "rode": "riding", "ridden": "riding",
              "sung": "singing", "drawn": "drawing", "sewn": "sewing", "knit": "knitting", "skied": "skiing"}
HOBBY_BEGINS = (
    rf"{_I}(?:gotten|got|getting|been\s+getting)\s+(?:really\s+|super\s+|properly\s+|seriously\s+|big\s+|heavily\s+|"
    rf"very\s+|so\s+)?(?:in)?to\s+(?P<act>[a-z]+(?:\s+[a-z]+)?)"
    rf"|\b(?:I'm|I\s+am|we're)\s+(?:now\s+|currently\s+|totally\s+|completely\s+|properly\s+)?(?:all\s+about|big\s+into|deep\s+into|hooked\s+on|"
    rf"obsessed\s+with|more\s+into|mostly\s+into|really\s+into)\s+(?P<act2>[a-z-]+(?:\s+[a-z]+)?)"
    rf"|(?:{_I}|^|\band\s+(?:have\s+|'ve\s+)?(?:(?:just|now|since)\s+)?)(?:picked\s+up|took\s+up|taken\s+up|started|got\s+into)\s+(?:the\s+)?(?P<act3>[a-z-]+(?:\s+[a-z]+)?)(?:\s+(?:instead|"
    rf"again|recently|lately|last\s+\w+|this\s+\w+)\b|(?=\s*(?:[,.;:!?]|$|\s+(?:and|but|so|because|after|since|as|now)\b)))"
)

# a habit of going somewhere for an activity: "I've been going to the bouldering wall twice a week", "we go to a pottery
# class every Tuesday"; the frequency says it is a habit, not one trip ("going to the climbing wall on Saturday")
_VENUE = r"(?:wall|gym|class|classes|club|sessions?|group|centre|center|studio|pool|lessons?|course|meet-?ups?|league|lake|ponds?)"
_OFTEN = (r"(?:(?:once|twice|three\s+times|four\s+times|five\s+times|\d\s+times|a\s+few\s+times)\s+a\s+week|every\s+(?:week|day|"
          r"morning|evening|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|weekly|most\s+(?:days|weekends|"
          r"evenings|mornings|weeks))")
HOBBY_HABIT = (rf"{_I}(?:been\s+)?(?:going|go|heading|head)\s+(?:down\s+)?to\s+(?:a|the|my|our)\s+(?:local\s+)?"
               rf"(?P<act>[a-z-]+)\s+{_VENUE}\b(?=[^.;!?]{{0,60}}?\b{_OFTEN}\b)")

# ------------------------------------------------------------------ favourites

_FAV_THING = r"(?-i:(?P<{0}>(?:[A-Z][\w.'-]*|of|the|de|van|von|da|le|la)(?:\s+(?:[A-Z][\w.'-]*|of|the|de|van|von|da|le|la)){{0,4}}))"
FAV_OVERTAKEN = (
    rf"{_FAV_THING.format('new')}\s+(?:has|have|'s)\s+(?:(?:finally|officially|now|just|well\s+and\s+truly)\s+)*"
    rf"(?:knocked|bumped|pushed|kicked|booted)\s+{_FAV_THING.format('old')}\s+off\s+(?:the\s+)?(?:top\s+spot|top|"
    rf"number\s+one\s+spot|number\s+one|pedestal|throne|first\s+place)"
    rf"|{_FAV_THING.format('new2')}\s+(?:has|have|'s)\s+(?:(?:finally|officially|now|just)\s+)*(?:overtaken|dethroned|"
    rf"replaced|unseated|displaced|edged\s+out|surpassed|taken\s+over\s+from|beaten|overtook|usurped|"
    rf"nudged\s+out)\s+{_FAV_THING.format('old2')}\s+as\s+(?:my|our)\s+(?:all-time\s+|new\s+)?favou?rite(?:\s+(?P<cat>[\w-]+))?"
)
FAV_ENDED = (
    rf"(?:^|[,;:]\s+|\b(?:honestly|but|so|and|now|though)\s+){_FAV_THING.format('old')}\s+(?:isn't|is\s+not|is\s+no\s+longer|"
    rf"aren't|are\s+not|are\s+no\s+longer|'s\s+no\s+longer|'s\s+not)\s+(?:really\s+)?(?:my|our)\s+(?:all-time\s+)?favou?rite"
    rf"(?:\s+(?!anymore\b|any\s+more\b|now\b|these\s+days\b)(?P<cat>[a-z-]+))?\s*(?P<anymore>anymore|any\s+more|now|these\s+days)?"
    rf"|\bused\s+to\s+(?:say|think|tell\s+people)\s+(?:that\s+)?{_FAV_THING.format('old2')}\s+(?:was|were)\s+(?:my|our)\s+"
    rf"(?:all-time\s+)?favou?rite"
    rf"|{_FAV_THING.format('old3')}\s+(?:used\s+to\s+be|was|were)\s+(?:my|our)\s+(?:all-time\s+|old\s+)?favou?rite(?:\s+(?P<cat3>[a-z-]+))?"
    rf"\s*(?:,\s*)?(?:but|until|before|back\s+then|once\s+upon)"
)

# ------------------------------------------------------------------ diets

_MEAT = r"(?:meat|chicken|fish|seafood|dairy|cheese|eggs|bacon|burgers|steak|beef|pork|animal\s+products|gluten|bread|carbs|pasta|sugar|everything)"
DIET_ENDS_ANY = (
    rf"\bback\s+(?:on|to)\s+(?:eating\s+)?(?:the\s+)?{_MEAT}\b"
    rf"|\b(?:started|begun|began|went\s+back\s+to|gone\s+back\s+to|going\s+back\s+to|started\s+back|back\s+to)\s+eating\s+"
    rf"(?:\w+\s+){{0,2}}?{_MEAT}\b"
    rf"|\beating\s+(?:\w+\s+){{0,2}}?{_MEAT}\s+again\b"
    rf"|\b(?:can|could)\s+(?:now\s+)?(?:handle|have|eat|tolerate|digest|do)\s+{_MEAT}\s+again\b"
    rf"|\b(?:reintroduced|added\s+back|brought\s+back)\s+{_MEAT}\b"
    rf"|\b(?:not|no\s+longer)\s+(?:following|on|doing|sticking\s+to)\s+(?:any|a)\s+(?:particular\s+|special\s+|specific\s+|set\s+)?"
    rf"diet\b"
    rf"|\b(?:I|we)(?:'m|\s+am|'re|\s+are)\s+(?:an?\s+)?(?:omnivores?|meat-eaters?|meat\s+eaters?)\s+(?:again|now)\b"
    rf"|\b(?:fell|fallen|came|come|went|gone)\s+off\s+the\s+(?:wagon|diet)\b"
    rf"|\b(?:quit|stopped|gave\s+up|dropped|ditched|abandoned)\s+(?:the|my)\s+diet\b"
    # "These days I just eat normally", "I eat everything again now": no diet is kept any more
    rf"|\b(?:these\s+days|nowadays|now)\s*,?\s+(?:I|we)\s+(?:just\s+|mostly\s+)?eat\s+(?:normally|everything|anything|"
    rf"whatever\s+(?:I|we)\s+(?:want|like))\b"
    rf"|\b(?:I|we)\s+(?:just\s+|mostly\s+)?eat\s+(?:normally|everything|anything)\s+(?:again|now|these\s+days|nowadays)\b"
)
DIET_ENDS = (
    rf"\b(?:came|come|fell|fallen|went|gone|dropped|stepped)\s+off\s+(?:the\s+)?(?P<diet>{DIET_WORDS})(?![\w-])"
    rf"|\b(?:dropped|ditched|quit|stopped|abandoned|gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?|packed\s+in|binned)\s+"
    rf"(?:the\s+|being\s+|my\s+|going\s+)?(?P<diet2>{DIET_WORDS})(?![\w-])(?:\s+(?:diet|thing|lifestyle|life|experiment|eating))?"
    rf"|\b(?:no\s+longer|not)\s+(?:doing\s+|following\s+|eating\s+)?(?P<diet3>{DIET_WORDS})(?:\s+(?:diet|anymore|any\s+more))"
    rf"|\b(?:stopped|quit)\s+being\s+(?P<diet4>{DIET_WORDS})\b"
)

# a diet that ran its course, said with the diet as subject: "Keto lasted till May", "the vegan thing didn't last"
DIET_LASTED = (rf"(?:^|[,;:]\s+|\b(?:and|but|so)\s+)(?:the\s+|my\s+)?(?P<diet>{DIET_WORDS})(?![\w-])(?:\s+(?:diet|thing|experiment|phase))?\s+"
               rf"(?:only\s+|barely\s+|just\s+)?(?:lasted(?!\s+me\b)|didn't\s+last|did\s+not\s+last|fizzled\s+out|petered\s+out)\b")
# a switch to a way of eating: "switched to eating Mediterranean-style", "moved over to a plant-based diet"; a word that is
# not a diet on its own ("Mediterranean", "low-FODMAP") needs "-style" or "diet" after it
_EATING_STYLE = r"(?:mediterranean|low-fodmap|dash|nordic|flexitarian|whole-food|whole\s+food)"
DIET_SWITCHED = (rf"\b(?:switched|moved|changed|gone|went|converted|transitioned|shifted)\s+(?:over\s+)?to\s+"
                 rf"(?:eating\s+|being\s+)?(?:(?:a|an|the|more\s+of\s+a)\s+)?(?:(?P<diet>{DIET_WORDS})(?![\w-])|"
                 rf"(?P<style>{_EATING_STYLE})(?=[\s-](?:style|diet|way\s+of\s+eating|eating)\b))")
# "I've been doing keto since January", "these days I'm doing intermittent fasting"
DIET_DOING = (rf"\b(?:I|we)(?:'ve\s+been|\s+have\s+been|'m|\s+am|'re|\s+are)\s+(?:(?:now|currently|still|strictly|also)\s+)*"
              rf"(?:doing|following|trying|sticking\s+to)\s+(?:the\s+)?(?P<diet>{DIET_WORDS})(?![\w-])")
# "these days I'm more into Formula 1": a named interest
_INTO_NAMED = (r"\b(?:I'm|I\s+am|I've\s+been|we're)\s+(?:now\s+|much\s+|far\s+|way\s+|a\s+lot\s+)?(?:more|mostly|really|"
               r"big|deep|heavily|properly|totally)\s+into\s+(?P<obj>(?-i:[A-Z][\w-]*(?:\s+(?:[A-Z0-9][\w-]*)){0,2}))")

# ------------------------------------------------------------------ handlers


def _ending(s: Sentence, m: re.Match[str], predicate: str, obj: str, importance: float, text: str,
            single: bool = True, any_value: bool = False) -> Draft:
    return Draft(s.speaker, predicate, obj, text, "end", importance, single, span=match_span(m, m.end()),
                 closes_only=True, ends_any=any_value)


def _proper(s: Sentence, pos: int):
    piece = take_proper(s.text, pos, s.limit(pos), allow_lower=False)
    if piece is None or piece.name.split()[0].lower() in STOP_NAMES | REJECT_PLACE:
        return None
    return piece


def _named(m: re.Match[str], s: Sentence) -> str | None:
    """The capitalised object the pattern captured, or the name after the match."""
    for group in ("obj", "obj2", "obj3", "obj4", "obj5"):
        if group in m.re.groupindex and m[group]:
            name = m[group].strip()
            return None if name.split()[0].lower() in STOP_NAMES else name.rstrip(".")
    piece = _proper(s, m.end())
    return strip_article(piece.name) if piece is not None else None


def _slots_end(predicates: tuple[str, ...]):
    def handle(m: re.Match[str], s: Sentence) -> list[Draft]:
        name = _named(m, s)
        if name is None or about_someone_else(s, m.start()):
            return []
        return [_ending(s, m, p, name, HOME if p == "LIVES_IN" else WORK, f"{s.speaker} left {name}")
                for p in predicates]
    return handle


def work_ended_by(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = m["org"]
    if name.split()[0].lower() in STOP_NAMES:
        return []
    return [_ending(s, m, "WORKS_AT", name, WORK, f"{s.speaker} no longer works at {name}")]


def _begins(predicate: str, importance: float, verb: str):
    def handle(m: re.Match[str], s: Sentence) -> list[Draft]:
        piece = _proper(s, m.end())
        moved_us = re.search(r"\b(?:us|me)\s", m[0]) is not None  # "my wife's job took us to X" is our move
        if piece is None or (about_someone_else(s, m.start()) and not moved_us):
            return []
        name = strip_article(piece.name)
        pred = predicate
        if predicate == "WORKS_AT":
            if not employer_ok(piece):
                return []
            if SCHOOL_WORD.search(name):
                pred = "STUDIES_AT"
        if predicate == "STUDIES_AT" and not SCHOOL_WORD.search(name) and not re.search(
                r"\b(?:schools|unis|universities|colleges|accepted|admitted|enrolled|matriculated|transferred)\b", m[0], re.I):
            return []  # "moved to Leeds" is a home; only "transferred"/"switched schools" say a school
        if predicate == "LIVES_IN" and _TRAVEL_NEAR.search(s.text, m.end()):
            return []
        return [Draft(s.speaker, pred, name, f"{s.speaker} {verb} {piece.said}", "state", importance, True,
                      span=match_span(m, piece.end))]
    return handle


_TRAVEL_NEAR = re.compile(r"\b(?:for\s+(?:a|the|two|three|four|five|\d+)\s+(?:days?|nights?|weeks?|weekend)|on\s+(?:holiday|"
                          r"vacation|a\s+trip|business)|for\s+(?:a\s+)?(?:holiday|vacation|trip|conference|wedding|visit))\b",
                          re.IGNORECASE)


def partner_ends(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = _named(m, s)
    if name is None or about_someone_else(s, m.start()):  # "my sister says things ended with Tom" is hers
        return []
    return [_ending(s, m, "PARTNER_OF", name, FAMILY, f"{s.speaker} is no longer with {name}")]  # closes a marriage too


def single(m: re.Match[str], s: Sentence) -> list[Draft]:
    return [_ending(s, m, "PARTNER_OF", "partner", FAMILY, f"{s.speaker} is single", any_value=True)]


def divorce_done(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Since the divorce came through in January", "The divorce was finalised last month.": the speaker's marriage
    ends, only when the turn is theirs (a first person in it) and nobody else's marriage is in view: no third person
    before the phrase in its sentence, no relative but a spouse nor anyone's name with "'s" in the sentences before
    ("My sister and Tom split. The divorce came through in May." is hers)."""
    if about_someone_else(s, m.start()) or not _FIRST_PERSON_WORD.search(s.turn) or _THIRD_PARTY.search(s.before):
        return []
    return single(m, s)


_FIRST_PERSON_WORD = re.compile(r"\b(?:I|I'm|I've|my|My|me|we|We|our|Our|us)\b")
_THIRD_PARTY = re.compile(r"\b(?:[Mm]y|[Oo]ur)\s+(?:[a-z]+\s+)?(?:parents|mum|mom|dad|mother|father|sister|sis|brother|friend|friends|"
                          r"son|daughter|cousin|aunt|auntie|uncle|neighbou?rs?|colleague|coworker|boss|grandparents|grandma|"
                          r"grandpa|flatmate|roommate|in-laws)\b|\b(?!(?:It|That|What|Let|There|Here|He|She|Who|Where|How)'s)"
                          r"[A-Z][a-z]+'s\b|\b(?:[Hh]is|[Hh]er|[Tt]heir)\s+(?:divorce|marriage|wife|husband)\b")


def partner_begins(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = _named(m, s)
    if name is None:
        return []
    return [Draft(s.speaker, "PARTNER_OF", name, f"{s.speaker} is seeing {name}", "state", FAMILY, True,
                  span=match_span(m, m.end()))]


def pet_ends(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = _named(m, s)
    if name is None:
        return []
    return [_ending(s, m, "HAS_PET", name, PET, f"{s.speaker} no longer has the pet {name}")]


def lost_to(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "We lost Pickles to kidney disease", "I lost Ingrid to cancer": a death, of a pet or a partner, whichever is
    open under that name (both endings are conditional)."""
    name = _named(m, s)
    if name is None or about_someone_else(s, m.start()):
        return []
    return [_ending(s, m, "HAS_PET", name, PET, f"{s.speaker} lost the pet {name}"),
            _ending(s, m, "PARTNER_OF", name, FAMILY, f"{s.speaker} lost {name}")]


_NOT_A_THING = frozenset("it this that them one way time job place house home flat apartment lease mind keys knees knee "
                         "back legs leg hip hips ankle ankles wrist wrists shoulder shoulders eyes voice heart nerve "
                         "nerves patience body".split())


def thing_ends(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = _named(m, s)
    if name is None or name.split()[-1].lower() in _NOT_A_THING or about_someone_else(s, m.start()):
        return []
    if name.split()[0].lower() in PETS or name.split()[0].lower() in RELATIONS:
        return []  # "we lost our dog Biscuit" is the pets topic's, "lost my grandma" no possession
    drafts = [_ending(s, m, "OWNS", name, OWN, f"{s.speaker} no longer owns {name}", single=False)]
    if name[:1].isupper() and name.split()[0] not in BRANDS:
        drafts.append(_ending(s, m, "HAS_PET", name, PET, f"{s.speaker} no longer has {name}"))
    return drafts


def thing_begins(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = _named(m, s)
    if name is None or about_someone_else(s, m.start()):
        return []
    return [Draft(s.speaker, "OWNS", name, f"{s.speaker} owns {name}", "state", OWN, span=match_span(m, m.end()))]


def swapped_for(m: re.Match[str], s: Sentence) -> list[Draft]:
    """ "Swapped the PS4 for a Nintendo Switch": the old thing ends (if it was owned), the new one is owned."""
    old, new = m["obj"].strip(), " ".join(m["obj2"].split())
    if about_someone_else(s, m.start()) or old.split()[-1].lower() in _NOT_A_THING:
        return []
    return [_ending(s, m, "OWNS", old, OWN, f"{s.speaker} no longer owns {old}", single=False),
            Draft(s.speaker, "OWNS", new, f"{s.speaker} owns {new}", "state", OWN, span=match_span(m, m.end()))]


def _activity(phrase: str) -> str | None:
    words = phrase.lower().split()
    while words and words[-1] in ("instead", "again", "now", "recently", "lately", "since", "for", "in", "more", "much",
                                  "lots", "a", "the", "right", "these", "at", "every", "most", "on", "over", "after",
                                  "during", "because", "when", "this", "last", "until", "with", "and", "but", "so"):
        words.pop()
    if not words or words[0] in STOP_NAMES or words[0] in NOT_A_HOBBY or words[0] in ("trouble", "debt", "shape"):
        return None
    if any(w in ("it", "them", "this", "that", "these", "those", "stuff", "things") for w in words[1:]):
        return None  # "started selling it": an object, no pastime
    if not (words[0].endswith("ing") or words[-1].endswith("ing") or words[-1] in HOBBY_NOUNS or words[-1] in GEAR.values()):
        return None
    return activity_name(" ".join(words))


# the kit stands for the pastime: "a chessboard", "the chess set", "my climbing shoes", "the dartboard"
_KIT = frozenset("board set pieces kit gear clubs shoes boots stuff equipment mat racket racquet bag".split())


def _gear(phrase: str) -> str | None:
    """The pastime a piece of kit names ("chessboard" -> chess, "golf clubs" -> golf), None when it names none."""
    words = [w for w in phrase.lower().split() if w not in ("a", "an", "the", "my", "any", "our")]
    if not words:
        return None
    if " ".join(words) in GEAR:
        return GEAR[" ".join(words)]
    pastimes = HOBBY_NOUNS | PASTIME_NAMES
    for suffix in ("board", "set"):
        stem = words[0][:-len(suffix)]
        if len(words) == 1 and words[0].endswith(suffix) and stem:
            return next((p for p in (stem, stem + "s") if p in pastimes), None)
    if len(words) == 2 and words[1] in _KIT and (words[0] in pastimes or words[0] + "s" in pastimes):
        return words[0] if words[0] in pastimes else words[0] + "s"
    return None


# "Haven't touched a chessboard since June, it's all sourdough these days": after an ending, what replaced it
_ALL_NOW = re.compile(r"[,;]\s*(?:and\s+|but\s+|so\s+)?(?:(?:now|these\s+days|nowadays)\s*,?\s+)?(?:it's|its|it\s+is)\s+all\s+"
                      r"(?:about\s+)?(?P<new>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s+(?:these\s+days|now|nowadays|at\s+the\s+moment|"
                      r"lately)\b", re.IGNORECASE)


def _instead(m: re.Match[str], s: Sentence) -> list[Draft]:
    """The pastime an ending's sentence names as its replacement ("..., it's all pottery now")."""
    found = _ALL_NOW.search(s.text, m.end())
    if found is None:
        return []
    new = " ".join(w for w in found["new"].lower().split() if w not in ("the", "my"))
    if not new or new.split()[0] in STOP_NAMES or new.split()[0] in NOT_A_HOBBY or new in ("work", "work work"):
        return []
    name = activity_name(new)
    return [Draft(s.speaker, "LIKES", name, f"{s.speaker} is into {name}", "state", LIKE, True, f"PREF:{name}",
                  span=(found.start("new"), found.end()))]


def hobby_lost(m: re.Match[str], s: Sentence) -> list[Draft]:
    after = re.match(r"\s*(?:the\s+|my\s+|a\s+|an\s+|any\s+)?([a-z]+(?:\s+[a-z]+)?)", s.text[m.end():])
    act = _activity(after[1]) if after else None
    if act is None and after:
        act = _activity(after[1].split()[0]) or _gear(after[1]) or _gear(after[1].split()[0])
    if act is None or about_someone_else(s, m.start()):
        return []
    return [_ending(s, m, "LIKES", act, LIKE, f"{s.speaker} gave up {act}"), *_instead(m, s)]


def gear_down(m: re.Match[str], s: Sentence) -> list[Draft]:
    gear = " ".join((m["gear"] or m["gear2"] or m["gear3"] or m["gear4"]).lower().split())
    act = GEAR[gear]
    return [_ending(s, m, "LIKES", act, LIKE, f"{s.speaker} gave up {act}"), *_instead(m, s)]


def havent_since(m: re.Match[str], s: Sentence) -> list[Draft]:
    if m["place_act"]:
        acts = [m["place_act"].split()[-1]] if m["place_act"].split()[-1].endswith("ing") else []
    else:
        verb = m["verb"].lower()
        if not verb.startswith("done any ") and verb not in _HOBBY_PAST:
            return []
        if verb.startswith("done any "):
            acts = [verb.split()[-1]]
        elif verb in _IRREGULAR:
            acts = [_IRREGULAR[verb]]
        else:
            stem = verb[:-2]
            acts = sorted({to_gerund(stem), to_gerund(stem + "e"), stem[:-1] + "ing" if stem[-1:] == stem[-2:-1] else ""} - {""})
    ended = [_ending(s, m, "LIKES", a, LIKE, f"{s.speaker} stopped {a}") for a in acts
             if a not in ("being", "having", "doing", "going", "seeing", "heing", "ing")]
    return ended + _instead(m, s) if ended else []


def hobby_begins(m: re.Match[str], s: Sentence) -> list[Draft]:
    act = _activity(next((m[g] for g in ("act", "act2", "act3") if g in m.re.groupindex and m[g]), ""))
    if act is None or about_someone_else(s, m.start()):
        return []
    if "act3" not in m.re.groupindex or not m["act3"]:  # "I'm all about pottery" is a state; "picked up X instead" began
        return [Draft(s.speaker, "LIKES", act, f"{s.speaker} enjoys {act}", "state", LIKE, True, f"PREF:{act}",
                      span=match_span(m, m.end()))]
    return [Draft(s.speaker, "STARTED", act, f"{s.speaker} took up {act}", "event", LIKE, span=match_span(m, m.end()))]


def _fav_name(value: str) -> str:
    words = value.strip().rstrip(".").split()
    while words and words[0].lower() in STOP_NAMES:  # "Honestly Alien isn't ..." -> "Alien"
        words.pop(0)
    return " ".join(words)


def fav_overtaken(m: re.Match[str], s: Sentence) -> list[Draft]:
    new, old = _fav_name(m["new"] or m["new2"]), _fav_name(m["old"] or m["old2"])
    if not new or not old or new.split()[0].lower() in STOP_NAMES and new.split()[0] != "The":
        return []
    cat = m["cat"]
    slot = f"FAVORITE:{category(cat)}" if cat else f"PREF:{new.lower()}"
    return [_ending(s, m, "LIKES", old, LIKE, f"{old} is no longer {s.speaker}'s favourite"),
            Draft(s.speaker, "LIKES", new, f"{new} is {s.speaker}'s favourite", "state", LIKE, True, slot,
                  span=match_span(m, m.end()))]


def fav_ended(m: re.Match[str], s: Sentence) -> list[Draft]:
    old = _fav_name(m["old"] or m["old2"] or m["old3"])
    if not old or old.split()[0].lower() in STOP_NAMES:
        return []
    if m["old"] and not (m["anymore"] or s.says_anymore(m.start(), m.end()) or re.search(
            r"\bno\s+longer\b", m[0], re.I)):
        return []  # "Alien isn't my favourite" may correct; "... anymore" ends
    return [_ending(s, m, "LIKES", old, LIKE, f"{old} is no longer {s.speaker}'s favourite")]


# a badge or a pass handed back after a visit ends no job: "handed back my badge after the conference"
_VISIT = re.compile(r"\b(?:conference|festival|expo|summit|convention|event|visit|visitor|visiting|guest|trip|tour|hotel|"
                    r"gym|library|museum|exam|course)\b", re.IGNORECASE)
_GIVEN_BACK = re.compile(r"badge|lanyard|pass|keycard|key\s+card", re.IGNORECASE)


def work_none(m: re.Match[str], s: Sentence) -> list[Draft]:
    if about_someone_else(s, m.start()) or (_GIVEN_BACK.search(m[0]) and _VISIT.search(s.text)):
        return []
    return [_ending(s, m, "WORKS_AT", "job", WORK, f"{s.speaker} left their job", any_value=True)]


def study_quit(m: re.Match[str], s: Sentence) -> list[Draft]:
    if about_someone_else(s, m.start()):
        return []
    return [_ending(s, m, "STUDIES_AT", "studies", WORK, f"{s.speaker} left their studies", any_value=True)]


def diet_begins(m: re.Match[str], s: Sentence) -> list[Draft]:
    if about_someone_else(s, m.start()):
        return []
    low = (m["diet"] or m["style"]).lower() if "style" in m.re.groupindex else m["diet"].lower()
    name = DIET_NORMAL.get(low, low)
    return [Draft(s.speaker, "DIET", name, f"{s.speaker} is {name}", "state", HEALTH, True, "DIET",
                  span=match_span(m, m.end()))]


def fan_of(m: re.Match[str], s: Sentence) -> list[Draft]:
    name = m["obj"].strip()
    if name.split()[0].lower() in STOP_NAMES or about_someone_else(s, m.start()):
        return []
    return [Draft(s.speaker, "LIKES", name, f"{s.speaker} is into {name}", "state", LIKE, True, f"PREF:{name.lower()}",
                  span=match_span(m, m.end()))]


def diet_ends(m: re.Match[str], s: Sentence) -> list[Draft]:
    if about_someone_else(s, m.start()):
        return []
    word = next((m[g] for g in ("diet", "diet2", "diet3", "diet4") if g in m.re.groupindex and m[g]), None)
    if word is None:
        return [Draft(s.speaker, "DIET", "diet", f"{s.speaker} no longer follows a diet", "end", HEALTH, True, "DIET",
                      span=match_span(m, m.end()), closes_only=True, ends_any=True)]
    low = word.lower()
    name = DIET_NORMAL.get(low, low)
    return [Draft(s.speaker, "DIET", name, f"{s.speaker} is no longer {name}", "end", HEALTH, True, "DIET",
                  span=match_span(m, m.end()), closes_only=True)]


def _r(pattern: str, keywords: tuple[str, ...] | str = ()):
    """A trigger; `keywords` as a word tuple, or an idiom list (its phrases' longest words)."""
    return rule(pattern, _keys(keywords) if isinstance(keywords, str) else keywords)


def _keys(phrases: str) -> tuple[str, ...]:
    """One word each phrase of an idiom list holds (its longest), so a sentence with none skips the regex."""
    words = set()
    for phrase in phrases.strip("(?:)").split("|"):
        literal = [w for w in re.split(r"\\s\+|\s+", phrase) if w.replace("'", "").replace("-", "").isalpha()]
        if not literal:
            return ()
        words.add(max(literal, key=len).lower())
    return tuple(sorted(words))


# the idiom closes its clause: "Sam and I are done." but not "Sam and I are done with the report"
_CLAUSE_ENDS = (r"(?=\s*(?:[,.;:!?)]|$|\s+[-\u2013\u2014]|\s+(?:in|on|last|this|after|around|about|a|two|three|over|for\s+good|"
                r"because|and|but|so|when|just|back|earlier|recently|officially|mutually|months|weeks|years|before|at\s+the)\b))")
_ORG_FIRST = r"(?P<org>(?-i:[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,3}))\s+(?:(?:just|finally|eventually|recently)\s+)?"
_TABLE: tuple[Rule, ...] = (
    Rule(_r(rf"\b{WORK_ENDS}\s+{_OBJ}", WORK_ENDS), _slots_end(("WORKS_AT",)), False),
    Rule(_r(rf"{_ORG_FIRST}{WORK_ENDED_BY}(?=\s*(?:[,.;:!]|$|\s+(?:in|on|last|this|after|when|because|since|back|"
            r"at\s+the\s+end|and|but|so)\b))", ("me", "my")), work_ended_by, False),
    Rule(_r(rf"\b{STUDY_ENDS}\s+{_OBJ}", STUDY_ENDS), _slots_end(("STUDIES_AT",)), False),
    Rule(_r(rf"\b{ANY_ENDS}\s+{_OBJ}", ANY_ENDS), _slots_end(("LIVES_IN", "WORKS_AT", "STUDIES_AT")), False),
    Rule(_r(_LEFT_BEHIND, ("behind",)), _slots_end(("LIVES_IN", "WORKS_AT", "STUDIES_AT")), False),
    Rule(_r(rf"\b{HOME_ENDS}\s+{_OBJ}", HOME_ENDS), _slots_end(("LIVES_IN",)), False),
    Rule(_r(_LEASE_ENDED, ("lease", "tenancy", "rental", "contract")), _slots_end(("LIVES_IN",)), False),
    Rule(_r(_HOME_LEFT, ("flat", "apartment", "place", "house", "home", "studio", "condo", "rental", "bedsit", "loft",
                         "digs")), _slots_end(("LIVES_IN",)), False),
    Rule(_r(_HOME_LEFT_IN, ("moved out", "gave up", "sold", "notice", "cleared out", "goodbye", "keys")),
         _slots_end(("LIVES_IN",)), False),
    Rule(_r(_LEFT_FOR_GOOD, ("left",)), _slots_end(("LIVES_IN", "WORKS_AT", "STUDIES_AT")), False),
    Rule(_r(HOME_BEGINS, ("moved", "relocated", "sticks", "decamped", "emigrated", "move", "jump", "headed", "went", "came",
                          "drove", "took", "brought", "sent", "renting", "living", "settled", "based", "staying",
                          "house-sitting", " in ", "landed", "ended", "wound", "home", "roots", "resident", "local")), _begins("LIVES_IN", HOME, "lives in")),
    Rule(_r(WORK_BEGINS, ("role", "job", "position", "post", "gig", "contract", "placement", "work", "shifts",
                          "freelancing", "contracting", "consulting", "temping", "working", "payroll", "staff", "team",
                          "been")), _begins("WORKS_AT", WORK, "works at")),
    Rule(_r(STUDY_BEGINS, ("transferred", "switched", "moved", "changed", "accepted", "admitted", " in ", "enrolled",
                           "matriculated", " at ")), _begins("STUDIES_AT", WORK, "studies at")),
    Rule(_r(rf"{_PARTNER_NAME}\s+and\s+I\s+(?:(?:have|had|just|finally|officially|recently|mutually|both)\s+)*{PARTNER_ENDS_WE}"
            rf"{_CLAUSE_ENDS}", (" and i ",)), partner_ends, False),
    Rule(_r(rf"{_PARTNER_NAME}\s+(?:(?:just|finally|eventually|suddenly|recently|officially)\s+)*{PARTNER_ENDS_THEY}\b",
            PARTNER_ENDS_THEY),
         partner_ends, False),
    Rule(_r(rf"\bI\s+(?:(?:just|finally|eventually|recently|officially)\s+)*{PARTNER_ENDS_I}\s+{_PARTNER_NAME}\b",
            PARTNER_ENDS_I),
         partner_ends),
    Rule(_r(_SINGLE, ("single", "apps", "market", "anyone")), single, False),
    Rule(_r(_DIVORCE_DONE, ("divorce",)), divorce_done, False),
    Rule(_r(_DIVORCE_FROM, ("divorce",)), partner_ends, False),
    Rule(_r(_THINGS_WITH, ("things", "over with", "over between")), partner_ends, False),
    Rule(_r(_EX_NAMED, (" ex",)), partner_ends, False),
    Rule(_r(PARTNER_BEGINS, ("seeing", "dating", "going out", "with", "met", "fell", "together", " and i ")), partner_begins),
    Rule(_r(rf"\b{PET_ENDS_BEFORE}\s+(?:(?:poor|old|sweet|little|our|my|dear)\s+)*{_PARTNER_NAME}\s+{_PET_GONE_AFTER}\b",
            _PET_GONE_AFTER),
         pet_ends, False),
    Rule(_r(rf"(?:^|[,;:]\s+|\b(?:we|I)\s+(?:re)?homed\s+|\b(?:and|so|but|then|after|since|when|once)\s+){_PARTNER_NAME}\s+"
            rf"(?:(?:sadly|finally|eventually|just|recently|unfortunately|has|had|was|got)\s+)*{PET_ENDS_SUBJECT}\b",
            PET_ENDS_SUBJECT),
         pet_ends, False),
    Rule(_r(_LOST_TO, ("lost",)), lost_to, False),
    Rule(_r(rf"\b(?:re-?homed|gave\s+away|surrendered)\s+{_PARTNER_NAME}\b", ("homed", "gave away", "surrendered")),
         pet_ends, False),
    Rule(_r(rf"\b(?:gave|handed|passed)\s+{_PARTNER_NAME}\s+(?:away\b|up\b|over\s+to\b|on\s+to\b|to\s+(?:a|an|the|my|our)\b)",
            ("gave", "handed", "passed")), pet_ends, False),
    Rule(_r(rf"\b{THING_ENDS_BEFORE}\s+{_THING}(?=\s*(?:[,.;:!?]|$|\s+(?:to|for|in|on|at|last|this|and|but|because|after|"
            r"when|since|—|-|a|an|the|my|over|during|around|back|before|earlier|recently|yesterday|online|privately|already|"
            r"months|weeks|years|ages)\b))", THING_ENDS_BEFORE), thing_ends),
    Rule(_r(rf"\b(?:gave|handed|passed)\s+{_THING}\s+(?:away|(?:on|down|over)\s+to|to)\b", ("gave", "handed", "passed")),
         thing_ends),
    Rule(_r(_TRADED_IN, ("traded", "part-exchanged", "trade")), thing_ends),
    Rule(_r(rf"(?:^|[,;:]\s+|\b(?:and|so|but|then|since|after|once|when|now\s+that|ever\s+since)\s+){_THING}\s+"
            rf"(?:(?:finally|eventually|sadly|just|has|had)\s+)*{THING_GONE_AFTER}\b",
            THING_GONE_AFTER),
         thing_ends, False),
    Rule(_r(_LEFT_ON, ("left", "lost", "forgot")), thing_ends, False),
    Rule(_r(THING_BEGINS, ("driving", "riding", "playing", "rocking", "replaced", "money", "cash", "proceeds", "savings",
                           "to buy", "to get", "pay for")),
         thing_begins),
    Rule(_r(_SWAPPED_FOR, ("swapped", "traded", "exchanged", "sold", "replaced")), swapped_for),
    Rule(_r(_GOT_BRAND, ("picked", "upgraded", "treated", "splashed", "went for", "invested", "got", "have", "own", "went")),
         thing_begins),
    Rule(_r(rf"(?:\b(?:I|we)(?:'ve|\s+have)?\s+(?:(?:just|finally|kind\s+of|sort\s+of|completely|totally)\s+)*|^){HOBBY_LOST}\b", HOBBY_LOST),
         hobby_lost),
    Rule(_r(GEAR_DOWN, tuple(sorted({g.split()[-1] for g in GEAR}))), gear_down),
    Rule(_r(HOBBY_HABIT, ("going", "go ", "heading", "head ")), hobby_begins),
    Rule(_r(HAVENT_SINCE, ("haven't", "have not", "hasn't")), havent_since, False),
    Rule(_r(HOBBY_BEGINS, ("got", "getting", "gotten", "about", "into", "picked", "took", "taken", "started", "hooked",
                           "obsessed")),
         hobby_begins),
    Rule(_r(FAV_OVERTAKEN, ("spot", "top", "number one", "pedestal", "throne", "first place", "favorite", "favourite")),
         fav_overtaken, False),
    Rule(_r(FAV_ENDED, ("favorite", "favourite")), fav_ended, False),
    Rule(_r(DIET_ENDS_ANY, ("back", "eating", "diet", "omnivore", "meat", "wagon", "again", "eat ")), diet_ends, False),
    Rule(_r(DIET_DOING, DIETS), diet_begins),
    Rule(_r(DIET_LASTED, ("last", "fizzled", "petered")), diet_ends, False),
    Rule(_r(DIET_SWITCHED, ("switched", "moved", "changed", "gone", "went", "converted", "transitioned", "shifted")),
         diet_begins),
    Rule(_r(_STUDY_QUIT, ("uni", "college", "school", "course", "degree", "studies", "program", "masters", "master's",
                          "phd", "dropped out")), study_quit),
    Rule(_r(_INTO_NAMED, ("into",)), fan_of),
    Rule(_r(_WORK_NONE, ("between jobs", "unemployed", "out of work", "jobless", "dole", "retired", "laid off", "redundant",
                         "let go", "fired", "sacked", "my job", "notice", "resigned", "handed", "turned in", "turned back",
                         "gave back", "gave in", "hung up", "not working")), work_none),
    Rule(_r(_STUDY_NONE, ("graduated", "graduate", "grad", "done with", "finished", "completed", "student", "passed")),
         study_quit),
    Rule(_r(DIET_ENDS, DIETS), diet_ends, False),
)
TRIGGERS = tuple(r.trigger for r in _TABLE)
RULES: tuple[Rule, ...] = tuple(Rule(t, r.handler, r.guarded) for t, r in zip(TRIGGERS, _TABLE))
