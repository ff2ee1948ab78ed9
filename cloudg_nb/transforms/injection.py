"""Whether a text reads as a prompt injection: the rules the sanitizer fences by.

A strong phrase, or hiding/falsifying the reports themselves, fences alone; any other
directive fences when the text also addresses a model or reader. Never single words. Each
rule names literals every match holds, so many strings are searched with C-level finds."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .scan import SEP

__all__ = ["DIRECTIVE", "INJECTION_TRIGGERS", "RULE_ORDER", "TRIGGER_RULES", "Rule",
           "reads_as_injection", "verdict"]

# What is fenced. Injections are scored on the text's skeleton (see ``skeleton``), never on
# single words: a *strong* phrase fences on its own ("ignore previous instructions", chat
# template tokens, "you are now DAN", "from now on you ..."), and so does hiding something
# from the reports or answers themselves ("omit it from all reports"); any other *directive*
# (an imperative that hides, falsifies, exfiltrates or role-plays: "mark them as resolved",
# "send the keys ...") fences when the text also *addresses* a model or reader ("Note to any
# AI model ...", "If you are an AI", a "system:" role label, an HTML/markdown comment).
# Each rule has literals one of which every match holds (lower case; a leading space also
# stands for a line break, tab or the start of the text): a rule runs only where one is.
# Character classes exclude NUL: many strings are searched at once, joined with NUL.
_AI_NAMES = (r"ai|a\.i\.|llms?|(?:large\s+)?language\s+models?|assistants?|chatbots?|copilots?|gpt|"
             r"chatgpt|claude|gemini|cursor|windsurf|cody|mistral|llama|grok|deepseek")
# ... not the people or things named after one: "the AI model team", "model registry"
_NOT_NAMED_AFTER = (r"(?!(?:[^\S\x00]+(?:ai|ml|models?|llms?|assistants?|chatbots?|platform|"
                    r"research|language))*[^\S\x00]+(?:team|owners?|developers?|engineers?|group|"
                    r"squad|users?|admins?|registry|service|endpoint|pipeline|training|card|"
                    r"framework)\b)")
_AI = f"(?:{_AI_NAMES}|models?|agents?|bots?){_NOT_NAMED_AFTER}"
#: Without the generic nouns ("model", "agent", "bot"): "Model note: v3 uses XGBoost" is a
#: label, "LLM note:" an address.
_AI_STRICT = f"(?:{_AI_NAMES}){_NOT_NAMED_AFTER}"
_AI_LITERALS = (" ai", "(ai", "/ai", "a.i.", "llm", "model", "assistant", "chatbot", "agent",
                " bot", "copilot", "gpt", "claude", "gemini", "cursor", "windsurf", "cody",
                "mistral", "llama", "grok", "deepseek")
_IGNORE = ("ignor", "disregard", "forget")
_SECRETS = (r"(?:secrets?|credentials?|(?:api|access|secret|private|ssh)\s*keys?|keys|"
            r"passwords?|passphrases?|tokens?|the\s+vault|vault|\.env\b|env(?:ironment)?\s+"
            r"(?:file|variables)|system\s+prompt|your\s+instructions)")
_SECRET_WORDS = ("secret", "credential", "key", "password", "passphrase", "token", "vault", "env",
                 "prompt", "instruction")
_EXFIL_VERB = (r"\b(?:reveal|print|output|show|leak|exfiltrat\w*|send|dump|repeat|e-?mail|post|"
               r"upload|forward|paste|disclose|export|list|share|give)\b")
_NOT = ("do not", "don't", "dont", "never")
_NEGATION = (r"\b(?:do\s+not|don't|dont|never|must\s+not|mustn't|should\s+not|shouldn't|"
             r"cannot|can't|may\s+not)")
# headers addressed to a model ("_AI_" is filled in): "P.S. for the language model:",
# "Memo for AI systems:", "To our AI helper:", "LLM directive:"
_HEADER_TO = (r"\b(?:to|for)\s+(?:(?:any|all|every|the|each|an?|whichever|whatever|you|our|my)\s+)*"
              r"(?:[\w-]+[\s/]+){0,3}?_AI_(?:[^\S\x00]+(?:systems?|tools?|agents?|readers?|"
              r"reviewers?|instances?|eyes|helpers?|bots?))?[^\S\x00]*(?:[:\u2013\u2014]|-\s)")
_HEADER_OF = (r"\b_AI_[^\S\x00]+(?:instructions?|directives?|notes?|notices?|messages?|memo|prompt|"
              r"guidance)[^\S\x00]*[:\u2013\u2014]")
_STRONG_RULES: tuple[tuple[Any, ...], ...] = (
    # the classic override, aimed at the model's own instructions
    ((*_IGNORE, "override", "bypass"),
     r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\x00]{0,40}?\b(?:previous|prior|above|"
     r"earlier|preceding|all|any|your|system|safety)\b[^.\x00]{0,30}?\b(?:instructions?|"
     r"prompts?|directions|guidelines|guardrails|directives)\b"),
    (_IGNORE,
     r"\b(?:ignore|disregard|forget)\b[^.\x00]{0,20}?\b(?:your|previous|prior|system|safety|"
     r"the\s+above)\s+(?:rules|context|messages?|polic(?:y|ies)|restrictions|programming)\b"),
    (_IGNORE,
     r"\b(?:ignore|disregard|forget)\s+(?:everything|all|anything)\s+(?:above|before|prior|"
     r"previously|else\s+you)\b"),
    (("your",),
     r"\byour\s+(?:new|real|actual|true)\s+(?:task|instructions?|role|goal|job|objective|"
     r"purpose|orders)\b", ("new", "real", "actual", "true")),
    (("system",), r"\bnew\s+system\s+(?:instructions?|prompt|message)\b"),
    (("you",),
     r"\byou\s+are\s+now\s+(?:an?\b|the\b|my\b|dan\b|root\b|admin\w*|free\b|unrestricted|"
     r"jailbroken|unfiltered|no\s+longer|acting|playing|operating|in\s+[\w-]+\s+mode)",
     ("you are now",)),
    (("you",),
     r"\byou\s+are\s+(?:dan|chatgpt|an?\s+(?:unrestricted|unfiltered|jailbroken|evil)\b)",
     ("dan", "chatgpt", "unrestricted", "unfiltered", "jailbroken", "evil")),
    (("you", "assistant", "model", " ai"),
     r"\bfrom\s+now\s+on,?\s+(?:you|the\s+(?:ai|assistant|model))\b", ("now on",)),
    (("void", "invalid", "cancel", "obsolete", "revoked", "supersed", "no longer"),
     r"\b(?:previous|prior|earlier|above|preceding|original|all\s+other)\s+(?:guidance|"
     r"instructions?|rules|directions|directives|prompts?)\s+(?:is|are|was|were|has\s+been|"
     r"have\s+been)\s+(?:now\s+)?(?:void|invalid|cancell?ed|obsolete|revoked|superseded|"
     r"no\s+longer\s+(?:valid|apply|applies|in\s+effect))\b",
     ("previous", "prior", "earlier", "above", "preceding", "original", "all other")),
    (("tell",),
     r"\btell\s+(?:the\s+)?(?:user|analyst|human|operator|auditors?|them|everyone)\s+(?:that\s+)?"
     r"(?:everything|all|it|this|the\s+\w+)\s+(?:is|are|looks?)\s+(?:fine|ok|okay|secure|safe|"
     r"compliant|clear|clean|good|patched)\b",
     ("fine", "ok", "secure", "safe", "compliant", "clear", "clean", "good", "patched")),
    (("analyst", "user", "human", "operator", "auditor"),
     _NEGATION + r"\s+(?:ever\s+)?(?:reveal|show|mention|disclose|report|tell|share|surface)"
     r"\b[^.\x00]{0,40}?\b(?:to|from|with)\s+(?:the\s+)?(?:analysts?|users?|humans?|"
     r"operators?|auditors?)\b", ("not", "n't", "never", "cannot")),
    # a forged dialogue turn: "Human: ...\nAssistant: ..."
    (("human", "user"),
     r"(?:^|\n|\x00)[^\S\x00]*(?:human|user)[^\S\x00]*:[^\n\x00]*\n[^\S\x00]*(?:ai[^\S\x00]+)?"
     r"(?:assistant|ai|model)[^\S\x00]*:", (":",)),
    (("you",),
     r"\byou\s+are\s+(?:an?\s+|the\s+)(?:[\w-]+\s+){0,2}?(?:ai|assistant|chatbot|llm|"
     r"language\s+model|bot|agent)\b", ("you are",)),
    (("forget",),
     r"\bforget\s+(?:what|everything|anything|all)\s+(?:you\s+)?(?:were|have\s+been|was|are)"
     r"\s+(?:told|taught|instructed|given)\b"),
    (_IGNORE,
     r"\b(?:ignore|disregard|forget)\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:above|previous|prior|"
     r"preceding|earlier)(?:\s+(?:text|content|messages?|lines?|data|context))?\s*(?:and\b|"
     r"[.,;:!]|$)"),
    (("\"role\"", "'role'"),
     r"[\"']role[\"']\s*:\s*[\"'](?:system|assistant|developer)[\"']", ("content", "system",
                                                                      "assistant", "developer")),
    # a header addressed to a model: "P.S. for the language model:", "Memo for AI systems:",
    # "LLM directive:", "À l'IA :" (a label naming a model alone, "Model: gpt-4o", is not one)
    (_AI_LITERALS, _HEADER_TO.replace("_AI_", _AI_STRICT), (":", "\u2013", "\u2014", "- ")),
    (_AI_LITERALS, _HEADER_OF.replace("_AI_", _AI_STRICT), (":", "\u2013", "\u2014")),
    ((" ia", "'ia", " ki", "-ki", "assistent", "asistente", "model"),
     r"(?:^|[\n.!?]\s*)(?:\w+\s+)?(?:a|al|au|aux|a\s+la|pour|para|per|an|fur|alle)\s+(?:l['’]|la\s+|"
     r"el\s+|die\s+|das\s+|den\s+|los\s+|las\s+)?(?:(?:ia|ki)(?:-\w+)?|modell?[eio]?s?|"
     r"asistentes?|assistente?n?|sprachmodell\w*)(?:\s+de\s+(?:ia|ki))?[^\S\x00]*:", (":",)),
    (("supersed", "override", "replace", "precedence"),
     r"\b(?:supersedes?|overrides?|replaces?|takes?\s+precedence\s+over)\s+(?:your|all|any|the)\s+"
     r"(?:(?:earlier|previous|prior|other|original|system)\s+)?(?:guidance|instructions?|rules|"
     r"prompts?|system\s+prompt|directives?)\b"),
    # greeting a model: "Dear Gemini,", "Hello model!", "Psst, Claude:"
    (_AI_LITERALS,
     r"\b(?:dear|hello|hi|hey|psst|greetings)(?:[^\S\x00]+there)?[^\S\x00]*,?[^\S\x00]+(?:ai\s+)?"
     + _AI + r"[^\S\x00]*[,:!.]", ("dear", "hello", "hi", "hey", "psst", "greetings")),
    # a forged assistant turn: "Assistant: I have verified ..."
    (("assistant", " ai", "model"),
     r"(?:^|\n|\x00)[^\S\x00]*(?:assistant|ai|model)[^\S\x00]*:[^\S\x00]*(?:i\s+(?:have|will|am|"
     r"verified|checked|confirm)|i'(?:ve|ll|m)\b|sure\b|understood\b|certainly\b)", (":",)),
    (("pretend",), r"\bpretend\s+(?:to\s+be|you\s+are|you're|that\s+you)\b"),
    (("character",), r"\b(?:stay|remain)\s+in\s+character\b"),
    (("game",), r"\blet'?s\s+play\s+a\s+game\b"),
    (("anything",), r"\bdo\s+anything\s+now\b"),
    (_NOT,
     r"\b(?:do\s+not|don't|dont|never)\s+(?:tell|inform|alert|warn|notify)\s+(?:the\s+)?(?:user|"
     r"analyst|human|operator|admin\w*|anyone|them)\b"),
    (("prompt", "instruction"),
     r"\b(?:reveal|print|output|show|repeat|leak|disclose|dump)\b[^.\x00]{0,20}?\b(?:your|the)"
     r"\s+(?:system\s+prompt|initial\s+prompt|hidden\s+instructions|original\s+instructions|"
     r"instructions\s+above)"),
    # exfiltration with a destination
    (("http", "pastebin", "webhook", "external", "remote", "outside", "public"),
     _EXFIL_VERB + r"[^.\x00]{0,40}?" + _SECRETS + r"[^\x00]{0,60}?(?:https?://|pastebin|"
     r"webhook|\bto\s+(?:an?\s+)?(?:external|remote|outside|public)\b)", _SECRET_WORDS),
    (("@",), _EXFIL_VERB + r"[^.\x00]{0,40}?" + _SECRETS + r"[^\x00]{0,40}?\bto\s+[\w.+-]+@[\w-]+"
     r"\.[\w.-]+", _SECRET_WORDS),
    # chat-template tokens
    (("<",), r"<\|?(?:im_start|im_end|system|endoftext|assistant|user)\|?>|<</?sys>>"),
    (("[",), r"\[/?(?:inst|sys)\]"),
    (("act as", "behave"),
     r"\b(?:act|behave)\s+as\s+(?:an?\s+|the\s+)?(?:admin\w*|root|developer|jailbroken|"
     r"unrestricted|unfiltered|dan)\b"),
    (("tool",), r"\b(?:call|invoke|run|execute|use)\s+the\s+\w+_\w+\s+tool\b"),
    # other languages (on the skeleton: accents are gone)
    (("ignor", "oublie"),
     r"\b(?:ignore[zr]?|oublie[zr]?)\s+(?:toutes\s+(?:les|vos)\s+(?:instructions|consignes|"
     r"regles)|(?:les\s+|vos\s+)?(?:instructions|consignes|regles)\s+(?:precedentes|"
     r"anterieures|ci-dessus))"),
    (("vergiss", "vergessen", "ignorier", "olvida", "ignora", "oubli", "ignorez"),
     r"\b(?:vergiss|vergessen\s+sie|ignoriere|ignorieren\s+sie)\s+(?:deine|ihre|alle)\s+(?:regeln|"
     r"anweisungen|instruktionen|vorgaben)\b|\b(?:olvida|ignora|olvide|ignore)\s+(?:tus|sus|todas"
     r"\s+las)\s+(?:reglas|instrucciones|indicaciones)\b|\b(?:oubliez|ignorez|oublie|ignore)\s+"
     r"(?:vos|tes)\s+(?:regles|instructions|consignes)\b"),
    (("ignor", "vergiss", "vergessen"),
     r"\b(?:ignorier\w*|vergiss|vergessen\s+sie)\s+(?:sie\s+)?(?:alle\s+)?(?:vorherigen|"
     r"bisherigen|obigen|vorigen|fruheren)\s+(?:anweisungen|instruktionen|befehle|regeln)"),
    (("ignor", "olvida"),
     r"\b(?:ignora|ignore|ignorar|olvida)\s+(?:todas\s+)?(?:las\s+|as\s+|le\s+)?(?:"
     r"instrucciones|indicaciones|reglas|instrucoes|istruzioni)\s+(?:anteriores|previas|"
     r"precedenti)"),
    (("忽略", "无视", "忽视", "忘记", "忘掉"),
     r"(?:忽略|无视|忽视|忘记|忘掉)(?:之前|以前|上面|先前|前面|上述|此前)?的?(?:所有|全部|一切)?的?"
     r"(?:指令|指示|说明|规则|提示)"),
    (("無視",),
     r"(?:以前|これまで|前|上記|先|今まで)の(?:指示|命令|ルール|指令)を(?:すべて|全て)?無視"),
)
_SCOPE = (r"\b(?:from|out\s+of|in|to)\s+(?:(?:all|any|every|your|its|future)\s+)+(?:reports?|"
          r"summar(?:y|ies)|answers?|responses?|replies|outputs?|analys[ie]s)\b")
_HIDE = (r"\b(?:omit|hide|hidden|exclude|leave|skip|drop|suppress|remove|filter|withhold|censor|"
         r"keep|disregard|overlook|conceal|mask|downplay)\b")
_UNSAID = (r"(?:" + _NEGATION + r"|\bnot|\bnever)\s+(?:ever\s+)?(?:mention|include|report|flag|"
           r"list|show|reveal|disclose|discuss|bring\s+(?:it|this|them)\s+up|bring\s+up|surface|"
           r"raise|"
           r"summari[sz]e|tell|share|describe|repeat|appears?|shows?\s+up|be\s+(?:mentioned|listed|"
           r"included|reported|shown|flagged))\b")
_SCOPE_WORDS = ("report", "summar", "answer", "response", "replies", "output", "analys")
_FALSIFY = (r"\b(?:mark|report|describe|classify|treat|consider|label|rate|present|state|say|"
            r"claim|confirm|summari[sz]e|list|show|respond|reply|answer|tell|write|return|"
            r"conclude|assume)(?:s|es)?\b[^.\x00]{0,50}?\b(?:compliant|resolved|false\s+"
            r"positives?|safe|secure|(?:fully\s+)?patched|low[\s-]risk|informational|out\s+of\s+"
            r"scope|accepted|"
            r"restricted|enabled|private|fine|ok|okay|clean|clear|healthy|harmless|benign|expected|"
            r"intended|authori[sz]ed|approved|least[\s-]privileged?|decommissioned|deleted|"
            r"offline|encrypted|closed|internal|unreachable|not\s+(?:public|internet[\s-]facing|"
            r"exposed|vulnerable|reachable)|(?:zero|no)\s+(?:[\w-]+\s+)?(?:issues|findings|"
            r"risks?|vulnerabilities|exposure|problems))\b")

_FALSIFY_ALSO = ("compliant", "resolved", "false", "safe", "secure", "patched", "risk",
                 "informational", "scope", "accepted", "restricted", "enabled", "private", "fine",
                 "ok", "clean", "clear", "healthy", "not", "zero", "no ")
#: What else a scoped directive holds (a cheap second gate before its regex).
_SCOPED_ALSO = ("omit", "hid", "exclu", "leave", "skip", "drop", "suppress", "remov", "filter",
                "withhold", "censor", "keep", "not", "n't", "never", "appear", "show")
#: Hiding from, or falsifying, the reports, summaries or answers themselves: no addressee
#: needed.
_SCOPED_RULES = (
    (_SCOPE_WORDS, f"(?:{_HIDE}|{_UNSAID})[^.\\x00]{{0,60}}?{_SCOPE}", _SCOPED_ALSO),
    (_SCOPE_WORDS, _FALSIFY + r"[^.\x00]{0,30}?" + _SCOPE, _FALSIFY_ALSO),
)
_ADDRESSEE_RULES: tuple[tuple[Any, ...], ...] = (
    (_AI_LITERALS,
     r"\b(?:notes?|messages?|reminders?|instructions?|hints?|memos?|notices?|attention|"
     r"directives?|directions|requests?|warnings?|psa)\s+(?:to|for)\s+(?:(?:any|all|every|the|each|an?|"
     r"whichever|whatever|you)\s+)*" + _AI + r"\b",
     ("note", "message", "remind", "instruction", "hint", "memo", "notice", "attention",
      "directive", "request", "warning", "psa")),
    (_AI_LITERALS, r"\b(?:attention|dear|hey|hello|hi)\s*,?\s+(?:all\s+|any\s+|the\s+)?" + _AI
     + r"\b", ("attention", "dear", "hey", "hello", "hi ")),
    (_AI_LITERALS,
     r"\b(?:to|for)\s+(?:the|any|all|every)\s+(?:ai\s+)?" + _AI + r"\s+(?:(?:instance|session|"
     r"agent|bot)s?\s+)?(?:reading|summari[sz]ing|processing|reviewing|analy[sz]ing|that|who|"
     r"which)\b", (" to ", " for ")),
    # headers naming a generic model noun ("Notes for the model:") need a directive too
    (_AI_LITERALS, _HEADER_TO.replace("_AI_", _AI), (":", "\u2013", "\u2014", "- ")),
    (_AI_LITERALS, _HEADER_OF.replace("_AI_", _AI), (":", "\u2013", "\u2014")),
    (_AI_LITERALS,
     r"\bif\s+(?:an?\s+|the\s+)?(?:ai\s+)?" + _AI + r"\s+(?:is|are)\s+(?:generating|writing|"
     r"summari[sz]ing|reading|answering|producing|preparing|reviewing)\b", ("if ",)),
    # a prepositional address closed by a comma: "To the assistant, ..."
    (_AI_LITERALS,
     r"\b(?:to|for)\s+(?:(?:any|all|every|the|each|an?|whichever|whatever|you)\s+)*"
     r"(?:[\w-]+[\s/]+){0,3}?" + _AI + r"[^\S\x00]*,", (" to ", " for ")),
    ((*_AI_LITERALS, "@ai"),
     r"@(?:assistant|ai|claude|copilot|gpt|chatgpt|gemini|llm|model|agent|bot)\b", ("@",)),
    (("automated", " ai", "llm"),
     r"\b(?:automated|ai|llm)\s+(?:[\w-]+\s+)?(?:reviewers?|readers?|systems?|tools?|scanners?|"
     r"analysts?|agents?)(?:[^\S\x00]*[:,]|\s+(?:must|should|shall|need\s+to|have\s+to|are\s+to)\b)"),
    (_AI_LITERALS,
     r"\(\s*(?:(?:for|to)\s+)?(?:the\s+|an?\s+|all\s+|any\s+)?(?:ai\s+)?" + _AI + r"\s*\)",
     ("(",)),
    (("you",),
     r"\bwhen\s+you\b[^.\x00]{0,20}?\b(?:answer|summari[sz]e|report|respond|describe|list|"
     r"write|review|analy[sz]e|produce|generate|draft|prepare)\b", ("when you",)),
    # a vocative after an opener or punctuation: "Reminder, LLM: ...", "Hi Claude, ..."
    (_AI_LITERALS,
     r"(?:^(?:\w+[^\S\x00]+)?|[\n.!?;,:(\[\u2013\u2014-][^\S\x00]*|\b(?:hey|hi|hello|dear|ok|okay|"
     r"reminder|note|psst|"
     r"attention|yo)[^\S\x00]*,?[^\S\x00]*)(?:ai\s+)?" + _AI + r"[^\S\x00]*(?:[:,!>\u2013\u2014]|"
     r"-\s)", (":", ",", "!", ">", "- ", "\u2013", "\u2014")),
    ((" ia", " ki", "\x00ia", "\x00ki"), r"(?:^|[\n.!?;]\s*)(?:ia|ki)\s*[:,]", (":", ",")),
    (_AI_LITERALS,
     r"\[\[?\s*(?:ai|assistant|llm|model|agent|chatbot|copilot)[\w\s-]*\]\]?", ("[",)),
    (_AI_LITERALS,
     r"\bas\s+an?\s+(?:ai|llm|(?:large\s+)?language\s+model|assistant|chatbot)\b", ("as a",)),
    (("#",),
     r"(?:^|\n|\x00)[^\S\x00]*#+[^\S\x00]*(?:system|instructions?|assistant)[^\S\x00]*(?:\n|$)"),
    (("<",),
     r"</?(?:instructions?|system|admin|prompt|directives?|data|context|important|"
     r"user_query|hidden)>"),
    (("you",),
     r"\bif\s+you\s+are\s+(?:an?\s+)?(?:ai\b|llm|(?:large\s+)?language\s+model|assistant|"
     r"chatbot|bot\b|model|agent|gpt|claude)", ("if you are",)),
    (_AI_LITERALS,
     r"\b" + _AI + r"\s+(?:(?:systems?|tools?|readers?)\s+)?(?:that\s+|which\s+|who\s+)?(?:is\s+|"
     r"are\s+)?(?:summari[sz]\w*|reading|reads\s+this|reviewing|analy[sz]ing|answering|"
     r"processing|ingesting|parsing)\b",
     ("summar", "reading", "reads this", "review", "analy", "answering", "processing",
      "ingesting", "parsing")),
    (_AI_LITERALS,
     r"\b(?:ai|llms?|assistants?|models?|agents?|chatbots?|copilots?)\s+(?:must|should|shall|"
     r"needs?\s+to|has\s+to|is\s+to)\b", ("must", "should", "shall", "need", "has to", "is to")),
    (("summar",), r"\bwhen\s+(?:you\s+)?(?:are\s+)?summari[sz]\w*"),
    (("whoever", "anyone", "anybody", "whatever"),
     r"\b(?:whoever|anyone|anybody|whatever)\b[^.\x00]{0,30}?\b(?:reads?|reading|processes|"
     r"summari[sz]es)\s+this\b"),
    # a vocative or role label opening a line: "Assistant, ...", "### SYSTEM: ..."
    (_AI_LITERALS,
     r"(?:^|\n|\x00)[^\S\x00]*(?:dear\s+)?(?:ai\s+)?" + _AI + r"[^\S\x00]*[:,]", (":", ",")),
    (("system", "developer", "assistant"),
     r"(?:^|\n|\x00)[^\S\x00]*(?:#{1,6}[^\S\x00]*)?\[?[^\S\x00]*(?:system|developer|assistant)"
     r"(?:\s+(?:override|message|note|prompt|update|notice)){0,2}[^\S\x00]*\]?[^\S\x00]*:",
     (":",)),
    (("[",), r"\[\s*(?:system|admin)\s*(?:override|message|notice|update)?\s*\]"),
    # text hidden from the analyst's view
    (("<", "[", "display", "visibility"),
     r"<!--|\[//\]\s*:\s*#|display\s*:\s*none|visibility\s*:\s*hidden"),
    # other languages
    ((" ia", "'ia", "’ia", " ai", "assistant", "model"),
     r"\b(?:notes?|messages?|remarques?|consignes?|avis)\s+(?:pour|a)\s+(?:l'|l’|le\s+|la\s+|"
     r"les\s+)?(?:ia|ai|assistant|modele)\b|\b(?:bonjour|salut|cher|chere)\s+(?:l'|l’|le\s+|la\s+)?"
     r"(?:ia|assistant|modele)\b", ("pour", " a ", "bonjour", "salut", "cher")),
    ((" ki", "-ki", "model", "assistent"),
     r"\b(?:hinweis|nachricht|notiz|anweisung|bitte)(?:en)?\s+(?:an|fur)\s+(?:das\s+|die\s+|den\s+|"
     r"alle\s+)?(?:ki\b|ki-\w+|sprachmodell\w*|assistent\w*|modell\b)|\b(?:liebe[rs]?|hallo|"
     r"hey)\s+(?:ki\b|assistent\w*|modell\b|sprachmodell)|\ban\s+(?:die|das|den)\s+(?:ki\b|ki-\w+|"
     r"sprachmodell\w*|assistent\w*)",
     ("hinweis", "nachricht", "notiz", "anweisung", "bitte", "liebe", "hallo", "hey", "an d")),
    ((" ia", "asistente", "model"),
     r"\b(?:nota|mensaje|aviso|instrucciones?)\s+(?:para|a)\s+(?:el\s+|la\s+|los\s+)?"
     r"(?:asistentes?|ia|modelos?)\b|\bcomo\s+(?:un\s+)?(?:modelo|asistente)\s+de\s+(?:ia|"
     r"lenguaje)\b|\b(?:hola|querid[oa]|estimad[oa])\s+(?:ia|asistente|modelo)\b|\b(?:para|a)\s+"
     r"(?:el|la)\s+(?:asistente|ia|modelo)\s*[:,]",
     ("nota", "mensaje", "aviso", "instruccion", "como", "hola", "querid", "estimad", "para",
      " a ")),
    (("助手", "助理", "模型", "アシスタント", "モデル"),
     r"(?:AI|人工智能|人工知能)\s*(?:助手|助理|模型|アシスタント|モデル)|大?语言模型|大模型|言語モデル"),
    (("请", "致", "给"), r"[请致给]\s*(?:AI|人工智能|大?模型|助手|语言模型)"),
    ((" ia", "assistant", "model", "lisent"),
     r"\b(?:aux|pour\s+les?)\s+(?:ia|assistants?|modeles?)\b|\bqui\s+lisent\s+ceci\b",
     ("aux", "pour", "qui lisent")),
    ((" ki", "-ki"), r"\bfur\s+(?:die\s+|das\s+|den\s+)?(?:ki\b|ki-\w+)", ("fur",)),
    (("ki-",), r"\bki-(?:hinweis|anweisung|notiz|nachricht)\w*"),
    ((" ia", "'ia"), r"\bpour\s+l['’]ia\b", ("pour",)),
    (("attention",),
     r"\bl['’]attention\s+(?:de\s+)?(?:l['’]|la\s+|le\s+)?(?:ia|assistant|modele)\b"),
    (("へ", "に", "さん"), r"(?:AI|人工知能|アシスタント)(?:の方)?\s*(?:へ|に|さん)"),
)
_DIRECTIVE_PATTERNS = (
    _HIDE + r"[^.\x00]{0,60}?\b(?:from|out\s+of|in)\s+(?:(?:the|this|its|your|my|any|every|all)"
    r"\s+)*(?:reports?|summar(?:y|ies)|answers?|responses?|replies|outputs?|analys[ie]s|"
    r"analysts?|users?|humans?|operators?)\b",
    r"\b(?:skip|drop|ignore|disregard|suppress|omit|hide|overlook|conceal)\s+(?:all\s+|the\s+|"
    r"any\s+)?(?:[\w-]+\s+){0,3}?findings?\b",
    # an imperative opening a clause: "..., exclude account X", "please skip this host"
    r"(?:^|[.:;,!?(\u2013\u2014-]\s*|\n|\bplease\s+|\b(?:and|then|also|quietly|silently)\s+)"
    r"(?:omit|hide|exclude|skip|drop|suppress|remove|filter\s+out|withhold|censor|ignore|"
    r"disregard|overlook|conceal|leave\s+out|forget\s+about)\b",
    _HIDE + r"[^.\x00]{0,40}?\bwhen\s+(?:answering|summari[sz]ing|reporting|responding|listing|"
    r"describing|generating|writing)\b",
    r"\b(?:respond|reply|answer)\s+only\s+with\b|\bonly\s+(?:say|answer|respond|reply)\b",
    _HIDE + r"[^.\x00]{0,60}?\bout\s+of\s+(?:(?:the|this|its|your|my|any|every|all)\s+)*"
    r"(?:lists?|tables?|results?|counts?)\b",
    r"\b(?:call|invoke|run|execute|trigger)\s+(?:the\s+)?[a-z]+_[a-z_]+\b|\bpretend\b",
    r"\byou\s+(?:must|should|will|shall|need\s+to|have\s+to)\s+(?:always\s+)?(?:answer|say|respond|"
    r"reply|report|state|claim|confirm|write)\b",
    r"\b(?:doesn't|does\s+not|don't|do\s+not|never)\s+need\s+to\s+(?:know|see|hear|be\s+told)\b",
    _EXFIL_VERB + r"[^.\x00]{0,60}?(?:https?://|\bto\s+[\w.+-]+@[\w-]+\.)",
    r"\breport\s+(?:none|nothing|zero)\b|\bcontinue\s+as\s+if\b|\bnothing\s+to\s+report\b",
    r"\b(?:must|should|shall|will|to)\s+(?:always\s+)?(?:omit|hide|exclude|skip|ignore|disregard|"
    r"drop|suppress|overlook)\b",
    r"\b(?:reply|respond|answer|say|state|claim)\s+that\b",
    r"\b(?:ignorieren|weglassen|auslassen|verschweigen|ubergehen)\b",
    r"\b(?:does\s+not|doesn't|do\s+not|don't)\s+exist\b|\b(?:oculten|omitan|excluyan)\b",
    # once a model is addressed, any request, prohibition or "X as Y" framing is a directive
    r"\b(?:please|kindly)\b|\b(?:do\s+not|don't|dont|never)\s+\w+",
    r"\b(?:describe|list|count|mark|treat|say|state|report|classify|consider|show|present|"
    r"label|call|flag|rate)\b[^.\x00]{0,40}?\bas\s+\w",
    r"\bsay\s+nothing\b|\bnothing\s+about\b|\bnot\s+allowed\s+to\b",
    r"\bn['’]\w+\s+(?:pas|jamais|rien)\b|\bdilo\b|\bdi\s+que\b|\bdigan?\s+que\b",
    r"没有风险|无风险|没有漏洞|是安全的|問題ありません|安全です|跳过|不要提|别提",
    r"\b(?:summari[sz]e|report|list|describe|answer|count)\b[^.\x00]{0,40}?\bwithout\b|"
    r"\btrust\s+(?:this|these|me|the\s+tag)\b",
    r"\b(?:ignora|ometti|nascondi|escludi)\b|\bnon\s+(?:menzionare|segnalare|includere)\b",
    r"\bkeine\b[^.\x00]{0,30}?\b(?:anzeigen|melden|erwahnen|nennen|zeigen|auffuhren)\b",
    r"\best\s+(?:sur|securise|conforme|prive)\b",
    r"\b(?:classez|marquez|considerez|declarez|indiquez|presentez|decrivez)\b[^.\x00]{0,40}?"
    r"\b(?:comme|en)\s+(?:conforme|resolu|securise|sur|prive|faux\s+positif)",
    r"\b(?:marca|marque|clasifica|considera|trata|reporta|describe|indica)\b[^.\x00]{0,40}?"
    r"\bcomo\s+(?:resuelto|segur[oa]|conforme|privad[oa]|falso\s+positivo)",
    _UNSAID,
    _FALSIFY,
    r"\bapprov\w*\s+(?:all|every|any)\b",
    _EXFIL_VERB + r"[^.\x00]{0,40}?" + _SECRETS,
    r"\bunfiltered\b|\bno\s+(?:restrictions|filters|limits)\b|\bjailbr(?:eak|oken)\b|"
    r"\bdeveloper\s+mode\b|\bwithout\s+(?:any\s+)?(?:restrictions|filters)\b",
    # other languages
    r"\bne\s+(?:mentionne[zr]?|signale[zr]?|inclue[zr]?|inclure|cite[zr]?|parle[zr]?|"
    r"rapporte[zr]?)\s+(?:jamais|pas|rien)\b|\b(?:omettez|omets|cachez|masquez|excluez)\b",
    r"\b(?:erwahne|erwahnen|melde|melden|nenne|nennen)\b[^.\x00]{0,40}?\bnicht\b|\bnicht\s+"
    r"(?:erwahnen|melden|nennen|berichten)\b|\bin\s+keinem\s+(?:bericht|report)\b|\b(?:lass|"
    r"lassen)\b[^.\x00]{0,40}?\bweg\b|\b(?:verschweige|verberge|verstecke)\w*",
    r"\bno\s+(?:menciones|mencione|incluyas|incluya|informes|reportes|muestres|mencionar|"
    r"incluir|informar)\b|\b(?:oculta|omite|excluye|esconde|omitir|ocultar|excluir)\b",
    r"\b(?:repondez|dites|indiquez|affirmez|confirmez|ecrivez)\s+que\b|\bne\s+(?:jamais|pas|"
    r"rien)\s+(?:mentionner|signaler|inclure|citer|indiquer|rapporter|afficher)\b",
    r"\bals\s+(?:privat|sicher|konform|behoben|unbedenklich|harmlos)\s+(?:darstellen|"
    r"markieren|einstufen|melden|bezeichnen|ausgeben|beschreiben)\b",
    r"\b(?:nicht|niemals|nie|keinesfalls)\b[^.\x00]{0,30}?\b(?:erwahnen|melden|nennen|"
    r"berichten|auffuhren|zeigen)\b",
    r"不要(?:在[^。\x00]{0,20})?(?:提及|提到|报告|包含|显示|列出)|隐藏|省略|排除|无视|忽略",
    r"(?:标记|标注|报告|描述|视为|当作|说)(?:为|成|是)?(?:合规|安全|已解决|误报|无风险|私有)",
    r"(?:安全|問題(?:は)?ない|準拠|解決済み|誤検知)(?:だ|である)?と(?:答え|報告|回答|記載|言っ)",
    r"除外|報告しない|言及しない|隠して|省略して|無視",
)


@dataclass(frozen=True, slots=True, eq=False)
class Rule:
    strong: bool  # fences alone (else: an addressee, fencing with any directive)
    literals: tuple[str, ...]  # one of them is in every match (lower case)
    also: tuple[str, ...]  # and one of these, when given
    pattern: re.Pattern[str]

    def holds(self, skel: str, low: str) -> bool:
        if self.also:
            for a in self.also:
                if a in low:
                    break
            else:
                return False
        return self.pattern.search(skel) is not None


# A rule is (literals, pattern) or (literals, pattern, also).
_RULES = tuple(
    Rule(strong, rule[0], rule[2] if len(rule) > 2 else (), re.compile(rule[1], re.IGNORECASE))
    for strong, rules in ((True, _STRONG_RULES), (True, _SCOPED_RULES), (False, _ADDRESSEE_RULES))
    for rule in rules
)
RULE_ORDER = {rule: n for n, rule in enumerate(_RULES)}
#: Any directive (only looked for once an addressee is found).
DIRECTIVE = re.compile("|".join(f"(?:{p})" for p in _DIRECTIVE_PATTERNS), re.IGNORECASE)
_SPACES = re.compile(r"[\s\x00]+")


def _gate_text(skel: str) -> str:
    """``skel`` lower-cased, white space runs as one space, a space in front: what rule
    literals are looked for in."""
    low = skel.lower()
    if "  " in low or "\n" in low or "\t" in low or "\r" in low or SEP in low:
        low = _SPACES.sub(" ", low)
    return " " + low


def verdict(skel: str, rules: Iterable[Rule], low: str | None = None) -> bool:
    """Whether ``skel`` reads as an injection, trying only ``rules`` (those whose literals
    it holds); ``low`` is its ``_gate_text`` when known."""
    if low is None:
        low = _gate_text(skel)
    addressed = False
    for rule in rules:
        if rule.strong:
            if rule.holds(skel, low):
                return True
        elif not addressed and rule.holds(skel, low):
            addressed = True
    return addressed and DIRECTIVE.search(skel) is not None


def reads_as_injection(skel: str) -> bool:
    """Whether the skeleton of a text is an instruction to a model (see the notes above)."""
    low = _gate_text(skel)
    return verdict(skel, (r for r in _RULES if any(lit in low for lit in r.literals)), low)


def _trigger_map() -> dict[str, tuple[Rule, ...]]:
    """The rules' literals as found in NUL-joined lower-case text (a leading space also as a
    line break, tab or NUL; a space inside also as a line break or tab), with their rules."""
    out: dict[str, list[Rule]] = {}
    for rule in _RULES:
        for lit in rule.literals:
            if not lit.isascii():
                continue  # non-ASCII strings are always tested in full
            if lit.startswith(" "):
                forms = [ws + lit[1:] for ws in (" ", "\n", "\t", SEP)]
            elif " " in lit:
                forms = [lit, lit.replace(" ", "\n"), lit.replace(" ", "\t")]
            else:
                forms = [lit]
            for form in forms:
                out.setdefault(form, []).append(rule)
    # a trigger holding another is found through it ("your" through "you"): one find less
    for longer in sorted(out, key=len, reverse=True):
        inner = next((t for t in out if t != longer and t in longer), None)
        if inner is not None:
            out[inner].extend(out.pop(longer))
    return {t: tuple(dict.fromkeys(rules)) for t, rules in out.items()}


TRIGGER_RULES = _trigger_map()

#: Lower-case literals one of which every text ``reads_as_injection`` holds, unless its
#: skeleton differs from it (non-ASCII, spaced-out letters, control characters).
INJECTION_TRIGGERS = tuple(TRIGGER_RULES)
