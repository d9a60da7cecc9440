"""Whether a message describes a site to build, as the offline demo reads it.

People describe what they want the ways they would tell a friend: "a bakery
called Crumb with a menu", "my yoga studio, with class times and prices", "I
run a plumbing business", "Crumb". In a project with no site yet, any of these
builds one (demo.planner); on a site that is there, the demo asks before
replacing it. A message is no description when it is:

- empty: no letters at all;
- a greeting or a thank-you ("hi", "thanks, looks great");
- a question that names nothing to build ("what can you do?", "how do I
  publish?"), or any question about Built-It itself;
- a change to what is there ("make it nicer", "my site is too plain"), which
  the demo does when it understands it (demo.intents) and else says it
  cannot;
- words that name no place, person, event or product ("I'm tired", "hiking").

To the last two the demo answers with what it can do, and offers to build a
site for the person's own words (`help_subject`).
"""

from __future__ import annotations

import re

from demo.kinds import kind_of
from demo.names import name_in
from demo.sections import sections_asked

_GREETING = {
    *("hi", "hello", "hey", "hiya", "howdy", "yo", "greetings", "good", "morning", "afternoon"),
    *("evening", "day", "there", "everyone", "all", "folks", "thanks", "thank", "you", "thx"),
    *("ty", "cheers", "ok", "okay", "k", "cool", "great", "nice", "perfect", "awesome", "wow"),
    *("lovely", "brilliant", "wonderful", "amazing", "excellent", "yes", "yeah", "yep", "yup"),
    *("no", "nope", "nah", "sure", "fine", "alright", "right", "hmm", "hm", "test", "testing"),
    *("help", "please", "again", "bye", "goodbye", "how", "are", "doing", "it's", "its", "it"),
    *("that's", "that", "looks", "look", "love", "this", "is", "so", "very", "much", "a", "lot"),
    *("lots", "built-it", "builtit", "demo", "bot", "assistant", "there", "what's", "up", "sup"),
    *("s", "ya", "u", "oh", "ah", "uh", "um", "well", "done", "wonderful", "cute", "neat"),
}
# What comes before the request itself: "please", "hi,", "can you".
_POLITE = re.compile(
    r"^(?:(?:please|pls|hey|hi|hello|ok|okay|so|now|also|and|then|just|alright|right)\b[\s,!.]*)*"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
)
# A change to what is there, understood or not.
_CHANGE = re.compile(
    r"^(?:add|change|turn|set|put|round|use|rename|paint|colou?r|remove|delete|fix|translate"
    r"|remember|rewrite|swap|replace|insert|include|update|square|move|hide|show|center"
    r"|centre|increase|decrease|shrink|enlarge|improve|tweak|adjust|edit|reword|shorten"
    r"|lengthen|bold|align|style|link|upload|publish|undo|revert|reduce|drop|redo|clean"
    r"|tidy|polish|try|get\s+rid|take\s+(?:out|away)|bring|let|keep|check|review|look\s+at)\b"
)
_MAKING = re.compile(
    r"^(?:(?:i|we)(?:'d|\s+would)\s+like|(?:i|we)\s+(?:want|need)|make|build|create|design"
    r"|do|write|start|set\s+up|give|get|want|need|like|help\s+me\s+(?:make|build|with))\b\s*"
)
_NEW_THING = re.compile(
    r"^(?:(?:me|us)\s+)?(?:a|an|one|new|some|something|my|our|site|website|web|page|landing"
    r"|portfolio|blog|shop|store)\b"
)
# About the site there is: "my site is too plain", "it looks dull", "the header is ugly".
_ABOUT_WHAT_IS_THERE = re.compile(
    r"^(?:(?:it|this|that)(?!(?:'s|\u2019s|\s+is)\s+(?:an?|for|my|our)\b)\b"
    r"|(?:the|my|our|this|that)\s+(?:whole\s+)?(?:site|website|web\s?site|page|homepage"
    r"|home\s+page|header|footer|text|fonts?|colou?rs?|design|layout|nav|navigation|buttons?"
    r"|images?|pictures?|photos?|logo|headings?|title|background|sections?|style|look)\b"
    r"(?!\s+(?:for|about|of|called|named)\b))"
)
_QUESTION = re.compile(
    r"\?\s*$|^(?:what|what's|whats|how|why|who|where|when|which|can|could|does|do|did|is|are"
    r"|will|would|should|may|am|have|has|tell\s+me)\b"
)
_ABOUT_BUILT_IT = re.compile(
    r"\b(?:built-?it|builtit|demo|api|key|openrouter|publish\w*|export|download|undo|redo"
    r"|domain|password|settings|account|sign\s+(?:in|up)|log\s?in|preview|editor|chat|model"
    r"|upload|zip|cost|price\s+of\s+built|free|work|works|you)\b"
)
_SITE_WORDS = re.compile(
    r"\b(?:site|website|web\s?page|homepage|landing|page|portfolio|blog|one-pager)\b"
)
# What says there is something to build for: "my mum", "I run…", "we're a…".
_SUBJECT = re.compile(
    r"\b(?:my|our)\s+[a-z]"
    r"|\b(?:i|we)\s+(?:run|own|have|sell|make|teach|play|sing|write|paint|design|organi[sz]e"
    r"|host|coach|bake|cook|offer|repair|fix|clean|grow|brew|photograph|perform)\b"
    r"|\b(?:i'm|i\s+am|we're|we\s+are|i\u2019m|we\u2019re)\s+(?:an?|the)\s"
)
_NOT_A_SUBJECT_WORD = {
    *("i", "i'm", "im", "me", "my", "you", "your", "we", "it", "is", "are", "am", "do", "does"),
    *("don't", "dont", "can", "can't", "know", "want", "need", "think", "not", "was", "be"),
}
_SCAFFOLD = re.compile(
    r"^(?:what(?:'s|\s+is|\s+are)?|how(?:'s|\s+is|\s+about)?|tell\s+me\s+about|about)\s+"
)


def describes(request: str) -> bool:
    """Whether `request` describes a site, a business, a person, an event or a
    product to build a site for."""
    lowered = " ".join(request.lower().split())
    if not re.search(r"[^\W\d_]", lowered) or _greeting(lowered):
        return False
    said = _POLITE.sub("", lowered)
    if _CHANGE.match(said) or _ABOUT_WHAT_IS_THERE.match(said):
        return False
    making = _MAKING.match(said)
    if making is not None:
        return _NEW_THING.match(said[making.end() :]) is not None
    if _QUESTION.search(said):
        return not _ABOUT_BUILT_IT.search(said) and _names_something(request, lowered)
    return _names_something(request, lowered) or _SUBJECT.search(said) is not None


def _names_something(request: str, lowered: str) -> bool:
    """A kind of place, a name, a section or a site: something to build."""
    return (
        kind_of(lowered) is not None
        or name_in(request) is not None
        or bool(sections_asked(lowered).sections)
        or _SITE_WORDS.search(lowered) is not None
    )


def _greeting(lowered: str) -> bool:
    words = re.findall(r"[^\W\d_][\w'\u2019-]*", lowered)
    return all(word.replace("\u2019", "'") in _GREETING for word in words)


def help_subject(request: str) -> str:
    """What the person's words could be a site for ("hiking", "my candles"),
    to offer to build it; "" when they are a greeting, a question about
    Built-It or a sentence of their own ("I'm tired")."""
    normal = " ".join(request.split()).rstrip("?!. ")
    lowered = normal.lower()
    said = _SCAFFOLD.sub("", _POLITE.sub("", lowered))
    words = said.split()
    if not words or len(words) > 5 or _greeting(said) or _ABOUT_BUILT_IT.search(said):
        return ""
    if _CHANGE.match(said) or _ABOUT_WHAT_IS_THERE.match(said) or _MAKING.match(said):
        return ""
    if any(word.strip(",.;:") in _NOT_A_SUBJECT_WORD for word in words):
        return ""
    # The person's own spelling: only the start was taken off.
    return normal[len(normal) - len(said) :] if len(normal) == len(lowered) else said
