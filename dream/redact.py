"""Find secrets in text and replace them with markers before dream keeps the text (DESIGN.md §6).

A secret becomes ``[REDACTED:<kind>]``; the kind names what was there (``github-token``), never the value.

Speed (1 MB of ordinary prose and code in about 20 ms of CPU): no regex is tried at every position.

* Provider tokens (``ghp_…``, ``sk-ant-…``, JWTs) lie inside one run of ``[A-Za-z0-9_.-]`` at least 20
  long. One pass over a byte mask finds those runs (a few percent of ordinary text); the token regexes
  search only their concatenation.
* Every other rule starts with a literal (``-----BEGIN ``, ``://``, ``authorization``, ``password``). The
  rule is skipped unless ``bytes.find`` (a C loop) finds it in an ASCII copy of the text (lower-cased for
  key names), and its regex then jumps from one occurrence of the literal to the next.
* Left boundaries are lookbehinds placed after a pattern's literal: a pattern that opens with an
  assertion (``\\b``, a lookbehind) loses the engine's literal-prefix skip and is dozens of times slower.

Decisions (each one a trade between a leaked secret and a false alarm):

* Stripe publishable keys (``pk_live_``/``pk_test_``) are public by design (they ship in web pages): not
  redacted. Secret and restricted keys (``sk_``/``rk_``, live and test) are.
* Base64 blobs (``data:image/png;base64,…``), UUIDs and git SHAs match no rule and are kept: a rule fires on
  one only if it happens to contain a provider prefix at a word boundary, which is vanishingly rare.
* A PEM header followed by a base64 body but no END line (a truncated paste) redacts to the end of the
  text. A bare header with no body (prose naming the format) is not a secret and is kept.
* ``key = value`` assignments. The key must end in a secret word (``password``, ``passwd``, ``passphrase``,
  ``secret``, ``token``, ``api_key``, ``access_key``, ``private_key``; ``pass`` and ``pwd`` only closing a
  compound like ``DB_PASS``), optionally followed by ``_key``/``_value``/``_secret``/``_token``/… or a
  digit: ``max_tokens``, ``token_count``, ``tokenizer``, ``password_hash``, ``secretName`` and
  ``PASS: test_x`` are other things. Only the value is redacted; the key stays readable. The value must
  look like a literal, not code:

  - quoted values are literals, unless shorter than 4, a placeholder (``<token>``, ``${VAR}``, ``{{ x }}``,
    ``***``, ``YOUR_API_KEY``, ``[MASK]``, an ``UPPER_SNAKE`` environment variable's name), an f-string or
    template with interpolation, or a phrase of plain words (``"Enter your password"``);
  - unquoted values are rejected when they are calls (``get_password()``), attribute chains
    (``args.token``, ``process.env.X``), subscripts, variables (``$X``, ``%X%``), paths, URLs, type names
    (``str``, ``Optional[str]``), keywords (``None``, ``true``), or the key's own name;
  - what remains is redacted when it mixes letters and digits or holds a symbol (``hunter2``, ``p@ss``);
  - a bare word (letters only, or digits only) is a variable in code (``password = pw_input``) but a value
    in config, so it is redacted only in config positions (``KEY=value`` at the start of a line or after
    ``export``, ``key: value`` at the start of a YAML line, ``?token=…``, ``--password x``), and then only
    for passwords (``password: postgres``) or when 16+ characters long. ``Token: expired`` and
    ``token: TokenModel`` are prose and code.

  Pure-word passwords in ``key = value`` form (INI files) are therefore missed, on purpose: the same text is
  an ordinary Python assignment.
* Idempotence: markers are inert (no rule may match text overlapping one), and ``redact`` re-scans its own
  output until nothing more is found, so ``redact(redact(x).text)`` never finds anything.
* Overlapping matches merge into one redaction covering their union; it takes the kind of the longest
  match (on a tie, the more specific rule: ``github-token`` beats ``token``).
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
import string
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from dream import regex_cache
from dream.lazy_pattern import LazyPattern
from dream.needles import NeedleScan

REDACTION_MARKER_PREFIX = "[REDACTED:"


@dataclass(frozen=True)
class Redaction:
    """One secret that was replaced: what kind it was and where it was in the original text."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class RedactionResult:
    text: str
    redactions: tuple[Redaction, ...]

    @property
    def changed(self) -> bool:
        return bool(self.redactions)

    @property
    def kinds(self) -> tuple[str, ...]:
        """Distinct kinds in order of first appearance."""
        return tuple(dict.fromkeys(r.kind for r in self.redactions))


def marker(kind: str) -> str:
    return f"{REDACTION_MARKER_PREFIX}{kind}]"


# --------------------------------------------------------------------------------------------------------
# Rules with a fixed literal prefix.

_Validator = Callable[[re.Match[str]], bool]


# Rule patterns compile on first use: most never meet their literal in a run.
_lazy = LazyPattern


@dataclass(frozen=True)
class _Rule:
    kind: str
    regex: LazyPattern
    needles: tuple[str, ...] = ()  # the rule is skipped unless one of these literals occurs
    group: str | None = None  # redact only this named group (keep a header name, a URL's host...)
    validate: _Validator | None = None


def _lb(width: int, chars: str = "A-Za-z0-9_") -> str:
    """A left boundary to place after a literal `width` chars long: the char before it is not in `chars`."""
    return rf"(?<![{chars}][\s\S]{{{width}}})"


_RB = r"(?![A-Za-z0-9_-])"  # right boundary for fixed-length tokens
_PORT_THEN_QUERY = regex_cache.compile(r"[0-9]+[?#]")  # `host:8080?q=a@b`: a port, then a query

_B64_WORD = "A-Za-z0-9_-"


def _mixed_case(m: re.Match[str]) -> bool:
    s = m.group(0)
    return any(c.isupper() for c in s[3:]) and any(c.islower() for c in s[3:])


def _discord_id(m: re.Match[str]) -> bool:
    # The first segment is a user id (decimal digits) in base64: a precise test that dotted identifiers fail.
    seg = m.group(0).partition(".")[0]
    try:
        raw = base64.urlsafe_b64decode(seg + "=" * (-len(seg) % 4))
    except (binascii.Error, ValueError):
        return False
    return 15 <= len(raw) <= 21 and raw.isdigit()


def _has_digit_and_letter(s: str) -> bool:
    return any(c.isdigit() for c in s) and any(c.isalpha() for c in s)


def _bearer_ok(m: re.Match[str]) -> bool:
    v = m.group("v")
    return _has_digit_and_letter(v) and not _is_placeholder(v)


def _url_password_ok(m: re.Match[str]) -> bool:
    return not _is_placeholder(m.group("v"))


_AUTH_SCHEMES = regex_cache.compile(
    r"bearer|basic|token|bot|digest|apikey|api-key|key|negotiate|ntlm|hmac|ssws", re.I
)


def _authorization_ok(m: re.Match[str]) -> bool:
    v = m.group("v")
    if len(v) < 8 or _is_placeholder(v) or _looks_like_code(v):
        return False
    if m.group("scheme"):
        return True
    # No scheme ("Authorization: required for admin"): only a credential-looking value counts.
    return len(v) >= 12 and (_has_digit_and_letter(v) or not v.isalpha())


# A variable named for a secret but holding something else: a public key, a key's id, a path...
_NOT_SECRET_PARTS = frozenset(
    {
        "PUBLIC",
        "PUB",
        "ID",
        "IDS",
        "PATH",
        "FILE",
        "DIR",
        "URL",
        "URI",
        "NAME",
        "LENGTH",
        "LEN",
        "SIZE",
        "COUNT",
        "TTL",
        "EXPIRY",
        "EXPIRES",
        "TYPE",
        "ALGORITHM",
        "ALG",
        "HEADER",
        "PARAM",
        "FIELD",
        "PREFIX",
        "MAX",
        "MIN",
        "LIMIT",
        "TIMEOUT",
        "ENABLED",
        "REGION",
        "ARN",
        "VERSION",
        "PROVIDER",
        "MODE",
        "FORMAT",
        "HASH",
        "SALT_ROUNDS",
        "ENV",
    }
)


def _secret_variable_ok(m: re.Match[str]) -> bool:
    name = m.group("name")
    parts = set(name.split("_"))
    v = m.group("v").rstrip(".,:")
    if "_" not in name and ":" in m.group(0).split(v, 1)[0]:
        return False  # `PASS: tests/…`, `KEY: value` in a log or a table: only `KEY=…` is a variable
    if parts & _NOT_SECRET_PARTS or _is_placeholder(v) or v.startswith(("$", "%", "<", "{")):
        return False
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", v) or v.lower() in _STOPWORDS:
        return False  # another variable's name, or a word
    if "://" in v or v.startswith(("/", "./", "~")):
        return False  # a path or a URL (its password, if any, is the url rule's)
    if "(" in v or "[" in v or re.fullmatch(r"[0-9.]+", v):
        return False  # code (`getpass.getpass(…)`, `re.compile(…)`), a version or an OID
    return len(v) >= 16 or _has_digit_and_letter(v) or any(not c.isalnum() for c in v)


def _stated_in_words(words: str) -> LazyPattern:
    """A password stated in prose in another language: the word, a copula or `:`, the value."""
    # A word of a script written without spaces (Japanese, Chinese, Korean) may be followed by a
    # letter ("パスワードは"); any other word must end where its letters do ("passwords" is no word).
    return _lazy(
        rf"(?:{words})(?:(?<=[\u3040-\u9fff\uac00-\ud7af])|(?![^\W\d_]))[^\n]{{0,40}}?"
        r"(?:[ \t](?:ist|es|est|é|e|è|is|era|war|was|wynosi|to|это|—|היא|הוא|lautet|c'est|c’est|är|هي|là|"
        r"adalah|jest|je|er)(?![^\W\d_])[ \t]*:?"
        r"|[ \t]*[:=：]|は|是|为|는|은)[ \t]*[«\"'`„“「]?[ \t]*"
        r"(?P<v>[^\s\"'`»“”」、。]*[^\s\"'`»“”」、。.,;:!?)])",
        re.I,
    )


# A password word in the person's own language, then a value near it that mixes letters and digits:
# "la clave del servidor es Nk@z1AT%rK-O", "пароль от сервера мониторинга uzt6Cm$73JGL".
_PASSWORD_WORDS_ASCII = (
    "password", "passwd", "passwort", "kennwort", "clave", "contrasena", "contrasenya", "mot de passe", "mdp",
    "senha", "wachtwoord", "haslo", "kata sandi", "kata laluan", "losenord", "salasana", "jelszo", "jelszava",
    "parola", "adgangskode", "adgangskoden", "passord", "passordet", "losenordet", "nenosiri", "lozinka",
    "sifre", "heslo", "geslo", "wifi pass", "pw",
)  # fmt: skip
_PASSWORD_WORDS_UNICODE = (
    "пароль", "كلمة السر", "كلمة المرور", "κωδικός", "κωδικό", "รหัสผ่าน", "jelszó", "पासवर्ड", "رمز عبور",
    "পাসওয়ার্ড", "پاس ورڈ", "lösenord", "lösenordet", "şifre", "パスワード", "비밀번호", "密码", "密碼",
    "contraseña", "hasło", "mật khẩu", "סיסמה", "heslo", "密钥", "秘钥", "密鑰",
)  # fmt: skip


def _near_needles(words: tuple[str, ...]) -> tuple[str, ...]:
    """A rule's needles: a long word as it is, a short one with what may follow it ("nin " and "nin:",
    not the "nin" of "running")."""
    return tuple(
        needle
        for word in words
        for needle in (
            (word,) if len(word) >= 5 else (word + " ", word + ":", word + "-", word + "=", word + "は")
        )
    )


def _password_near(words: tuple[str, ...]) -> LazyPattern:
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return _lazy(
        rf"(?:{alternatives})(?:(?<=[\u0e00-\u0e7f\u3040-\u9fff\uac00-\ud7af])|(?![^\W\d_]))"
        r"[^\n]{0,72}?(?:\n[ \t]*)?(?<![^\s:=«\"'(“„])"
        r"(?P<v>(?=[^\s]{0,63}[0-9])(?=[^\s]{0,63}[A-Za-z])[^\s\"'`»“”」、。,;]{8,64})",
        re.I,
    )


def _in_marker(m: re.Match[str]) -> bool:
    """Whether the match starts inside a redaction marker (`[REDACTED:url-password]`): its words are
    no context."""
    opened = m.string.rfind(REDACTION_MARKER_PREFIX, 0, m.start() + 1)
    return opened != -1 and m.string.find("]", opened) >= m.start()


def _password_near_ok(m: re.Match[str]) -> bool:
    raw = m.group("v")
    v = raw.rstrip(".,:;!?)")
    between = m.string[m.start() : m.start("v")]
    assigned = re.match(r"[^\W\d]+[ \t]*[=:][ \t]*", between)
    # A word of a script written without spaces may follow a name at once ("APIv3密钥是 …").
    unspaced = "\u3040" <= m.string[m.start()] <= "\u9fff"
    inside_a_name = (
        m.start() > 0
        and not unspaced
        and (m.string[m.start() - 1].isalnum() or m.string[m.start() - 1] in "_$")
    )
    if _in_marker(m) or inside_a_name or (assigned and assigned.end() < len(between)):
        return False  # the word's own value was passed over ("POSTGRES_PASSWORD=${…} postgres:16")
    # Said in a sentence, a `$` that opens no variable's name is the password's first character
    # ("lösenordet till routern är $RKqBomcgN47"): the tests below look at what follows it.
    if v.startswith("$") and not _shell_variable(v):
        v = v[1:]
    return (
        len(v) >= 8
        and not _is_placeholder(v)
        and "://" not in v
        and not v.startswith(("/", "./", "~"))
        and not re.fullmatch(r"\$\{?[A-Z_][A-Z0-9_]*\}?", v)  # an environment variable's name
        and not re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{1,2}:[0-9]{2}", v)  # a timestamp
        # code: a call, a member, a subscript (`password.translate(_trans_5C)`)
        and not (re.search(r"[(){}\[\]]|\.[a-z_]", raw) and not _WORDS_AND_DIGITS.search(v))
        and not re.match(r"[\w ]+[.(\[]", between)
        and _random_looking(v, strong=True, near=True)
    )


# A code said as a number in many languages: a PIN, a lock's combination, a door code, a TAN, a CVV.
_CODE_WORDS_ASCII = (
    "pin", "door code", "gate code", "access code", "alarm code", "lock code", "security code",
    "verification code", "confirmation code", "pickup code", "unlock code", "radio code", "code de",
    "codigo del", "codice", "kod odbioru", "kod sms", "kod", "combo", "combination", "passcode", "puk", "tan",
    "override code", "digit code", "confirmation code", "toegangscode", "pinkoden", "pinkode", "portkoden",
    "portkod", "login code", "sign-in code", "2fa code",
    "radio-code", "autoradio-code",
    "otp", "alarmcode", "turcode",
)  # fmt: skip
_CODE_WORDS_UNICODE = (
    "код",
    "コード",
    "暗証番号",
    "pinは",
    "código",
    "türcode",
    "kód",
    "κωδικός",
    "인증번호",
    "비밀번호",
)
_NOT_A_SECRET_CODE = regex_cache.compile(
    r"(?i)\b(?:error|exit|status|http|response|return|zip|postal|post|area|country|line|promo|discount|"
    r"coupon|source|sample|example|qr|bar|color|colour|unicode|ascii|char|key ?code|region|language|iso|"
    r"claude)\b"
)
# Words of electronics: "the sensor's data pin is 115" is a pin of a board. A board has no pin
# numbered in the thousands, so a code of four digits and more is a code whatever is said near it.
_BOARD_PIN = regex_cache.compile(r"(?i)\b(?:gpio|led|data|analog|digital|pwm|sensor)\b")
_READING = regex_cache.compile(r"(?i)\b(?:reads|shows|says|returns|outputs|measures|value|reading)\b")


def _code_pattern(words: tuple[str, ...]) -> LazyPattern:
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return _lazy(
        # (one floor or room said by its ordinal on the way: "Türcode … im 3. OG ist", "3rd floor";
        # classes repeated, not an alternation, which the engine would try at every character)
        rf"(?:{alternatives})(?:(?<=[\u3040-\u9fff\uac00-\ud7af])|(?![^\W\d_]))[^\n0-9=<>!]{{0,64}}?"
        r"(?:(?<![0-9])[0-9]{1,2}(?:\.|st|nd|rd|th)[ \t][^\n0-9=<>!]{0,40}?)?"
        r"(?:[ \t](?:is|are|es|ist|est|è|é|e|jest|je|er|är|lautet|era|war|was|it's|shows|says|reads)"
        r"(?![^\W\d_])|は|:|—"
        r"|(?<=combination)|(?<=combo)|(?<=odbioru)|(?<=kod sms)|(?<=passcode)|(?<=puk)|(?<=tan)"
        r"|(?<=digit code)|(?<=[\u3040-\u9fff\uac00-\ud7af]))[ \t]*"
        r"(?P<v>[0-9]{3}[ -][0-9]{3}|[0-9]{3,8}[#*]?|[0-9]{2}(?:-[0-9]{2}){2,3})(?![0-9])",
        re.I,
    )


def _code_ok(m: re.Match[str]) -> bool:
    before = m.string[max(0, m.start() - 24) : m.start("v")]
    if _BOARD_PIN.search(before) and (len(m.group("v").rstrip("#*")) <= 3 or _READING.search(before)):
        return False  # a pin of a board, or what it reads ("the analog pin reads 4095")
    return not _in_marker(m) and not _NOT_A_SECRET_CODE.search(before)


# A person's identity number named as such, in many countries' words.
_ID_WORDS_ASCII = (
    "nric", "rut", "rijksregisternummer", "fodselsnummer", "henkilotunnus", "cnp", "id number", "isikukood",
    "rodne cislo", "tfn", "ahv", "amka", "pps number", "emirates id", "oib", "egn", "itin", "rnokpp",
    "kennitala", "hkid", "jmbg", "sozialversicherungsnummer", "taj", "cuil", "cuit", "nhs number", "nie",
    "mbi",
    "mykad", "nombor ic", "ic saya", "nik", "ktp", "cccd", "nin", "bvn", "philsys", "pcn", "cpr",
    "ausweisnummer", "dowodu", "passeport", "passport", "driver licen", "driver's licen", "drivers licen",
    "medicare", "versichertennummer", "national id", "id card", "identity number", "tax number", "curp",
    "codice fiscale", "nif", "bsn", "pesel", "kimlik", "tc no", "dl", "kennitalan", "ausweis",
)  # fmt: skip
_ID_WORDS_UNICODE = (
    "身份证", "身分證", "fødselsnummer", "henkilötunnus", "תעודת הזהות", "rodné číslo", "αμκα", "ΑΜΚΑ",
    "เลขบัตรประชาชน", "егн", "рнокпп", "іпн", "香港身份證", "الرقم القومي", "số cccd", "numéro de passeport",
    "マイナンバー", "주민등록번호", "снилс", "fødselsnummeret", "henkilötunnukseni", "kennitalan",
)  # fmt: skip


def _id_pattern(words: tuple[str, ...]) -> LazyPattern:
    # A long word may take a suffix ("Fødselsnummeret", "henkilötunnukseni"); a short one stands alone,
    # but a word of a script written without spaces ("身份证") has no word boundary to stand at.
    def spaced(word: str) -> bool:
        return len(word) < 7 and not re.search(r"[\u0e00-\u0e7f\u3040-\u9fff\uac00-\ud7af]", word)

    long = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True) if not spaced(w))
    short = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True) if spaced(w))
    return _lazy(
        rf"(?:(?:{long})[^\W\d_]{{0,6}}|"
        rf"\b(?:{short})(?:(?<=[\u0e00-\u0e7f\u3040-\u9fff\uac00-\ud7af\u0590-\u06ff])"
        r"|(?![^\W\d_])))"
        r"[^\n0-9]{0,50}?(?P<v>(?-i:(?=[A-Z0-9 ./()-]{0,22}[0-9])[A-Z0-9][A-Z0-9 ./()-]{5,22}[A-Z0-9)]))"
        r"(?![A-Za-z0-9])",
        re.I,
    )


def _id_ok(m: re.Match[str]) -> bool:
    v = m.group("v")
    if _in_marker(m):
        return False
    if re.fullmatch(r"(?:19|20)[0-9]{2}(?:[-./][0-9]{1,2}){0,2}", v):
        return False  # a year or a date
    if sum(c.isdigit() for c in v) >= 6:
        return True
    # A document number with letters: a passport's or an identity card's ("K4WZ28F4X").
    word = m.group(0).lower()
    return (
        word.startswith(("passport", "passeport", "ausweis", "dowodu", "id card", "driver"))
        and 8 <= len(v) <= 12
        and v.isalnum()
        and _has_digit_and_letter(v)
    )


_PASSWORD_WORDS = (
    "contraseña", "hasło", "parola d'ordine", "пароль", "סיסמה", "הסיסמה", "パスワード", "密码", "mật khẩu",
    "şifre", "şifresi", "heslo", "lösenordet", "lösenord", "كلمة المرور", "비밀번호",
)  # fmt: skip


# Found only in text that is not ASCII (the literal search above cannot see these words).
_QUESTION_WORDS = ("question", "?", "вопрос", "pytają", "pytanie", "pregunta", "frage", "domanda", "pergunta")
_ANSWER = (
    r"(?:answer|odpowiedź|odpowiedz|ответ|respuesta|antwort|réponse|reponse|risposta|resposta|antwoord)"
    r"(?:[ \t]+[\w']+){0,4}?[ \t]*(?:[ \t](?:is|was|to|es|ist|est|è|é|era|war|je|jest)[ \t]+|[:=—-][ \t]*)"
    r"(?:(?:exactly|just)[ \t]+)?"
    r"[\"'“„«]?(?P<v>(?<=[\"'“„«])[^\"'”“»\n]{2,40}(?=[\"'”“»])|[^\W_][\w'-]*[0-9][\w'-]*"
    r"|(?-i:[A-Z0-9А-Я])[\w'-]*(?:[ \t](?-i:[A-Z0-9])[\w'-]*){0,2})"
)


def _answer_ok(m: re.Match[str]) -> bool:
    """An answer to an account's security question: the question is asked nearby."""
    before = m.string[max(0, m.start() - 200) : m.start()].lower()
    if _in_marker(m) or _is_placeholder(m.group("v")):
        return False
    return any(word in before for word in _QUESTION_WORDS)


# (each looked for in every text that is not ASCII: the few that say it, not every word of the rule)
_SEED_NAMES = (
    "palabras", "palavras", "mots", "wörter", "worte", "słów", "woorden", "слов", "semilla", "recupera",
    "wiederherstellungsphrase", "мнемони", "сид-фраз",
    "助记词", "助記詞", "ニーモニック", "니모닉", "시드 구문",
)  # fmt: skip
_UNICODE_RULES: tuple[_Rule, ...] = (
    _Rule(
        "password",
        _lazy(_ANSWER, re.I),
        ("odpowied", "ответ", "réponse"),
        group="v",
        validate=_answer_ok,
    ),
    _Rule(
        "password",
        _password_near(_PASSWORD_WORDS_UNICODE),
        tuple(w.lower() for w in _PASSWORD_WORDS_UNICODE),
        group="v",
        validate=_password_near_ok,
    ),
    _Rule("pin", _code_pattern(_CODE_WORDS_UNICODE), _CODE_WORDS_UNICODE, group="v", validate=_code_ok),
    _Rule(
        "card-number",
        _lazy(
            r"(?:карта|карты|картой|卡号|卡號|银联卡|kartım|kartı|cartão)[^\n0-9]{0,20}?"
            r"(?P<v>[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4})(?![0-9])",
            re.I,
        ),
        ("карт", "卡号", "卡號", "银联卡", "kartı", "cartão"),
        group="v",
        validate=lambda m: _luhn(re.sub(r"[ -]", "", m.group("v"))),
    ),
    _Rule(
        "national-id",
        _id_pattern(_ID_WORDS_UNICODE),
        tuple(w.lower() for w in _ID_WORDS_UNICODE),
        group="v",
        validate=_id_ok,
    ),
    _Rule(
        "national-id",
        # Identity numbers named in words the ASCII copy of the text cannot hold: a French social
        # security number, Japan's My Number, a Korean resident number, a Russian SNILS.
        _lazy(
            r"(?:num[ée]ro de s[ée]cu(?:rit[ée] sociale)?|マイナンバー|주민등록번호|снилс)"
            r"[^\n0-9]{0,60}?(?P<v>[0-9][0-9 .-]{6,22}[0-9])(?![0-9])",
            re.I,
        ),
        ("sécu", "secu", "マイナンバー", "주민등록번호", "снилс"),
        group="v",
        validate=lambda m: sum(c.isdigit() for c in m.group("v")) >= 9,
    ),
    _Rule(
        "password",
        # A code word a bank asks for on the phone, in quotes after its name.
        _lazy(
            r"(?:кодовое слово|\bcode ?word\b|"
            r"mot de passe vocal)[^\n«\"“]{0,60}[«\"“](?P<v>[^»\"”\n]{2,40})[»\"”]",
            re.I,
        ),
        ("кодовое слово", "code word", "codeword"),
        group="v",
    ),
    _Rule(
        "password",
        _stated_in_words("|".join(_PASSWORD_WORDS)),
        # Looked for in the text itself (lower-cased), not its ASCII copy.
        tuple(word.lower() for word in _PASSWORD_WORDS),
        group="v",
        validate=lambda m: _stated_secret_ok(m),
    ),
    _Rule(
        "password",
        # Turkish puts the value right after the word: "sunucu şifresi R4v3n43^".
        _lazy(r"(?:şifresi|şifre|parolası)[ \t]+(?P<v>[^\s,;]{6,})", re.I),
        ("şifre", "parolası"),
        group="v",
        validate=lambda m: _stated_secret_ok(m),
    ),
    _Rule(
        "api-key",
        # "카카오 REST API 키: 833a0e9b…": a key (키) named, then hex.
        _lazy(r"키[ \t]*[:：=][ \t]*(?P<v>[0-9A-Za-z]{24,})", re.I),
        ("키",),
        group="v",
        validate=lambda m: _has_digit_and_letter(m.group("v")),
    ),
    _Rule(
        "seed-phrase",
        # A wallet's seed words in the wallet's language, after a word for them ("me dio estas 12
        # palabras: capaz tramo …", "助记词:纪 何 湘 …", "ニーモニックで作りました:\n\nうんこう　はづき …").
        _lazy(
            r"(?:(?P<n>12|15|18|21|24)[ \t]+(?:palabras|palavras|mots|wörter|worte|parole|слов|kelime|"
            r"słów|woorden|ord|sanaa|szó|từ)|frase semilla|semilla|frase de recuperaci[oó]n|"
            r"phrase de récupération|wiederherstellungsphrase|助记词|助記詞|ニーモニック|니모닉|시드 구문|"
            r"мнемоническ\w*|сид-фраз\w*)"
            r"[^\n]{0,40}?[:：][ \t\u3000]*(?:\r?\n[ \t\u3000]*){0,2}"
            # (letters and combining marks: BIP39 hands its words over decomposed, NFKD)
            r"(?P<v>(?:[^\W\d_]|[\u0300-\u036f\u3099\u309a])+"
            r"(?:[ \t\u3000]+(?:[^\W\d_]|[\u0300-\u036f\u3099\u309a])+){11,23})",
            re.I,
        ),
        _SEED_NAMES,
        group="v",
        validate=lambda m: _seed_words_ok(m),
    ),
    _Rule(
        "password",
        # A password or passphrase quoted after its name in Japanese, Chinese or Korean, spaces and
        # all ("SSH鍵のパスフレーズは「flint autumn aspen mercury」です"): what a person types there is
        # in Latin letters.
        _lazy(
            r"(?:パスワード|パスフレーズ|暗証番号|密码|密碼|口令|비밀번호|암호)[^\n「『“\"]{0,6}?"
            r"(?:は|是|为|為|는|은|:|：)[ \t]*[「『“\"]"
            r"(?P<v>[\x21-\x7e][\x20-\x7e]{2,62}[\x21-\x7e])[」』”\"]"
        ),
        ("パスワード", "パスフレーズ", "暗証番号", "密码", "密碼", "口令", "비밀번호", "암호"),
        group="v",
        validate=lambda m: _quoted_in_cjk_ok(m.group("v")) and not _in_marker(m),
    ),
)


# Seed words in many languages, all of them words of the list: none of a sentence's small words.
_FOREIGN_SMALL_WORDS = frozenset(
    re.findall(
        r"\S+",
        "de la el los las que y en un una es por con para del al le les et à du des der die das und ist ein "
        "eine zu mit von il di che per non em um uma com os não и в на не что это",
    )
)


def _quoted_in_cjk_ok(v: str) -> bool:
    """A value, not a key's or a button's name ("パスワードは「Enter」キーで確定"): letters with digits
    or a symbol, or a passphrase of three words and more."""
    if _is_placeholder(v):
        return False
    words = v.split()
    if len(words) == 1:
        return _has_digit_and_letter(v) or (any(not c.isalnum() for c in v) and len(v) >= 6)
    return len(words) >= 3 and all(w.isalpha() for w in words) and _words_of_a_passphrase(words)


def _seed_words_ok(m: re.Match[str]) -> bool:
    """As many words as a seed has (the number said, if one was), few repeated, none a small word."""
    words = m.group("v").split()
    said = m.group("n")
    if said is not None:
        if len(words) < int(said):
            return False
        words = words[: int(said)]
    if len(words) not in (12, 15, 18, 21, 24) or len(set(words)) < len(words) - 2:
        return False
    low = {w.lower() for w in words}
    latin = all(w.isascii() or "a" <= w[0].lower() <= "z" or w[0] in "áéíóúñàèìòùâêîôûçäöüß" for w in words)
    if latin and any(len(w) < 3 or not w.islower() for w in words):
        return False
    return not low & (_FOREIGN_SMALL_WORDS | _SMALL_WORDS | _SENTENCE_WORDS)


# The small words of a sentence: a passphrase of dictionary words has none of them.
_SENTENCE_WORDS = frozenset(
    re.findall(
        r"\S+",
        "a an the and or but in on at to of for with by from is are was be not it that this as into "
        "stored kept saved used set rotated",
    )
)


def _in_code(v: str) -> bool:
    """`pw = pw[:-1]`, `pwd=None`, `pw = self.passwd`: a name in code, not a value."""
    return _looks_like_code(v) or v.lower() in _STOPWORDS or re.fullmatch(r"[A-Za-z_][\w.]*", v) is not None


def _national_id_ok(m: re.Match[str]) -> bool:
    """Six digits or more; or an Indian PAN (`KINPJ8634R`); or a passport number, letters and at
    least one digit (`CZZZ7FTFJ`)."""
    v = m.group("v")
    if sum(c.isdigit() for c in v) >= 6:
        return True
    said = m.group(0).lower()
    if said.startswith("pan"):
        return re.fullmatch(r"[A-Z]{5}[0-9]{4}[A-Z]", v) is not None
    return said.startswith("passport") and v.isalnum() and len(v) >= 8 and _has_digit_and_letter(v)


def _stated_secret_ok(m: re.Match[str]) -> bool:
    """`the keystore password is Tr0ub4dor&3`, `my phone PIN is 4821`: a value, not a word of prose."""
    v = m.group("v")
    word = m.group(0).split()[0].lower()
    if word in ("pin", "passcode") or m.group(0).lower().startswith("pin code"):
        return v.isdigit() and 4 <= len(v) <= 10
    if _is_placeholder(v) or v.lower() in _STOPWORDS or len(v) < 6:
        return False
    if v.isalpha():
        return False  # "the password is required", "the token is expired"
    return _has_digit_and_letter(v) or any(not c.isalnum() for c in v)


def _verbatim_ok(m: re.Match[str]) -> bool:
    """One chosen word, or three words and more of a passphrase ("juniper pumpkin, crystal!"); not a
    rule said of it ("exactly: 8 characters", "exactly: what you typed at setup")."""
    v = m.group("v")
    words = [w.strip(_PUNCTUATION) for w in v.split()]
    if _in_marker(m) or _is_placeholder(v):
        return False
    if len(words) == 1:
        return _password_shaped(v) or _random_looking(v)
    return len(words) >= 3 and all(w.isalpha() for w in words) and _words_of_a_passphrase(words)


def _words_of_a_passphrase(words: list[str]) -> bool:
    """Words a passphrase is made of: none of the small words every sentence has, few repeated."""
    low = [w.lower() for w in words]
    said = _SMALL_WORDS | _SENTENCE_WORDS | _SAID_OF_A_PASSWORD | _STOPWORDS
    return len(set(low)) >= len(low) - 1 and not set(low) & said


_IDENTIFIER_DIGITS = regex_cache.compile(r"[0-9][A-Za-z]")  # `E1J`, `57Q8n`: not `Node2`, `User12`


def _account_password_ok(m: re.Match[str]) -> bool:
    """`admin: <value>`: a value a person chose (a symbol, a digit among letters, or random), in a
    config line or after a label of a few words; not `is_admin = User2`, `root = Path(…)`, `sysadmin:`."""
    text, start = m.string, m.start()
    if start and (text[start - 1].isalnum() or text[start - 1] in "_.-$@/"):
        return False
    before = text[text.rfind("\n", 0, start) + 1 : start]
    if m.group("sep") == "=" and before.strip(" \t-"):
        return False  # `=` only opens a line of an INI or properties file; elsewhere it is code
    if m.group("sep") == ":" and not re.fullmatch(r"[ \t]*(?:-[ \t]+)?(?:[A-Za-z]+[ \t]+){0,4}", before):
        return False
    v = m.group("v").rstrip(".,:;!?)")
    if _in_marker(m) or not _password_shaped(v) or _looks_like_code(v) or v.lower() in _STOPWORDS:
        return False
    return (
        any(not c.isalnum() for c in v)
        or (_IDENTIFIER_DIGITS.search(v) is not None and not v.isupper())
        or _random_looking(v)
    )


_PEM_END = r"-----END[ ](?:[A-Z0-9]+[ ])*PRIVATE[ ]KEY(?:[ ]BLOCK)?-----"
_NL = r"(?:[ \t\r\n]|\\+[rn])"  # a real newline, or escaped inside a JSON string (nested JSON: twice)

# Provider tokens. Each lies inside one run of [A-Za-z0-9_.-] at least _MIN_TOKEN long, so these rules only
# search the long runs of a text (a small fraction of ordinary text), never the whole of it. There a search
# costs about what a literal pre-check would, so most rules have none.
_MIN_TOKEN = 20
_TOKEN_RULES: tuple[_Rule, ...] = (
    # A product key: five groups of five (`C9YRB-GZRJ0-X6XM8-2CX1Y-FS7CX`), letters and digits.
    _Rule(
        "license-key",
        _lazy(
            r"(?<![A-Za-z0-9-])(?=[A-Z0-9-]{0,28}[0-9])(?=[A-Z0-9-]{0,28}[A-Z])[A-Z0-9]{5}(?:-[A-Z0-"
            r"9]{5}){4}(?![A-Za-z0-9-])"
        ),
        ("-",),
    ),
    # Cashu ecash and a BIP38 encrypted key, by their prefixes.
    _Rule("private-key", _lazy(r"(?<![A-Za-z0-9])cashu[AB][A-Za-z0-9_-]{40,}"), ("cashu",)),
    _Rule("private-key", _lazy(r"(?<![1-9A-Za-z])6P[1-9A-HJ-NP-Za-km-z]{56}(?![1-9A-Za-z])"), ("6P",)),
    # A NATS nkey seed: S, the key type, then base32 (`SUA7AYMB2T…`, 58 characters).
    _Rule("private-key", _lazy(r"(?<![A-Z0-9])S[UOANCXP][A-Z2-7]{56}(?![A-Z0-9])"), ("S",)),
    # A Nostr secret key and an Avalanche exported key.
    _Rule("private-key", _lazy(r"(?<![a-z0-9])nsec1[02-9ac-hj-np-z]{50,60}(?![a-z0-9])"), ("nsec1",)),
    _Rule("private-key", _lazy(r"PrivateKey-[1-9A-HJ-NP-Za-km-z]{40,}"), ("PrivateKey-",)),
    _Rule(
        "private-key",
        # 86 to 90 characters of base58 and nothing else: a 64-byte key (Solana, a Phantom export).
        # Random base64 of that length avoids 0, O, I, l, + and / about once in five thousand.
        _lazy(r"(?<![0-9A-Za-z+/=])[1-9A-HJ-NP-Za-km-z]{86,90}(?![0-9A-Za-z+/=])"),
        (),
        validate=lambda m: _has_digit_and_letter(m.group(0)) and _mixed_case(m),
    ),
    _Rule("anthropic-key", _lazy(r"sk-ant-" + _lb(7, "A-Za-z0-9") + r"[A-Za-z0-9_-]{20,}")),
    _Rule(
        "openai-key",
        _lazy(
            r"sk-"
            + _lb(3, "A-Za-z0-9_-")
            + r"(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,}(?![A-Za-z0-9_-]))"
        ),
    ),
    _Rule("github-token", _lazy(r"gh[pousr]_" + _lb(4) + r"[A-Za-z0-9]{36,255}")),
    _Rule("github-pat", _lazy(r"github_pat_" + _lb(11) + r"[A-Za-z0-9_]{22,255}")),
    _Rule(
        "gitlab-token",
        _lazy(r"gl(?:(?:pat|ptt|oas|cbt)-" + _lb(6) + "|(?:dt|rt)-" + _lb(5) + r")[A-Za-z0-9_-]{20,}"),
    ),
    _Rule(
        "aws-access-key-id",
        _lazy(r"A(?:KIA|SIA|BIA|CCA)" + _lb(4, "A-Za-z0-9") + r"[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ),
    _Rule("slack-token", _lazy(r"x(?:ox[abeprs]|app)-" + _lb(5) + r"[A-Za-z0-9-]{15,}")),
    _Rule(
        "stripe-key",
        # Opens with a choice, which the engine cannot skip to: run only where `_live_`/`_test_` occurs.
        _lazy(r"[rs]k_(?:live|test)_" + _lb(8) + r"[A-Za-z0-9]{16,}"),
        ("k_live_", "k_test_"),
    ),
    _Rule("google-api-key", _lazy(r"AIza" + _lb(4) + r"[A-Za-z0-9_-]{35}" + _RB)),
    _Rule("google-oauth-token", _lazy(r"ya29\." + _lb(5) + r"[A-Za-z0-9_-]{20,}")),
    _Rule("npm-token", _lazy(r"npm_" + _lb(4) + r"[A-Za-z0-9]{36}" + _RB)),
    _Rule(
        "huggingface-token",
        _lazy(r"hf_" + _lb(3) + r"[A-Za-z]{30,}(?![A-Za-z0-9_])"),
        validate=_mixed_case,
    ),
    _Rule(
        "pypi-token",
        _lazy(r"pypi-" + _lb(5) + r"(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}"),
    ),
    _Rule("twilio-key", _lazy(r"SK" + _lb(2) + r"[0-9a-f]{32}" + _RB)),
    _Rule("sendgrid-key", _lazy(r"SG\." + _lb(3) + r"[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}")),
    _Rule(
        "discord-token",
        # A user id (17+ digits) in base64: every fourth character is M, N or O (a digit's top bits), which
        # lets most attempts fail within a few characters.
        _lazy(
            r"[MNO]"
            + _lb(1, _B64_WORD)
            + r"(?:[A-Za-z0-9_-]{3}[MNO]){5}[A-Za-z0-9_-]{2,7}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}"
            + _RB
        ),
        validate=_discord_id,
    ),
    _Rule("digitalocean-token", _lazy(r"do[opr]_v1_" + _lb(7) + r"[a-f0-9]{64}" + _RB)),
    _Rule("shopify-token", _lazy(r"shp(?:at|ca|pa|ss)_" + _lb(6) + r"[a-fA-F0-9]{32}" + _RB)),
    _Rule("age-secret-key", _lazy(r"AGE-SECRET-KEY-1" + _lb(16, "A-Za-z0-9") + r"[0-9A-Z]{58}")),
    _Rule(
        "jwt",
        _lazy(r"eyJ" + _lb(3, _B64_WORD) + r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ),
    # A dot inside a value is no reason to keep it: these providers put one there themselves.
    _Rule("vault-token", _lazy(r"hv[sbr]\." + _lb(4) + r"[A-Za-z0-9_-]{24,}")),
    _Rule(
        "vault-token-legacy",
        _lazy(r"s\." + _lb(2, "A-Za-z0-9_.") + r"[A-Za-z0-9]{24}(?![A-Za-z0-9_.-])"),
        validate=lambda m: _mixed_case(m) and any(c.isdigit() for c in m.group(0)),
    ),
    _Rule(
        "doppler-token",
        _lazy(r"dp\.(?:pt|st|sa|ct|scim)\." + _lb(6) + r"(?:[a-z0-9_-]{2,12}\.)?[A-Za-z0-9]{40,}"),
    ),
    # More providers (the fourth tuning corpus).
    _Rule("mapbox-token", _lazy(r"sk\.eyJ" + _lb(3) + r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}")),
    _Rule("telnyx-key", _lazy(r"KEY" + _lb(3) + r"[0-9A-F]{32}_[A-Za-z0-9]{20,}")),
    _Rule(
        "riot-key",
        _lazy(r"RGAPI-" + _lb(6) + r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ),
    _Rule("readme-key", _lazy(r"rdme_" + _lb(5) + r"[a-z0-9]{60,}")),
    _Rule("bitcoin-private-key", _lazy(r"[xt]prv" + _lb(4) + r"[1-9A-HJ-NP-Za-km-z]{100,112}")),
    _Rule("docker-pat", _lazy(r"dckr_pat_" + _lb(9) + r"[A-Za-z0-9_-]{24,}")),
    _Rule("mailgun-key", _lazy(r"key-" + _lb(4) + r"[0-9a-f]{32}" + _RB)),
    _Rule("mailchimp-key", _lazy(r"[0-9a-f]{32}-us[0-9]{1,2}" + _RB), validate=lambda m: _lb_ok(m, 1)),
    _Rule("newrelic-key", _lazy(r"NR(?:AK|AA|II)-" + _lb(5) + r"[A-Z0-9]{27}" + _RB)),
    _Rule("heroku-key", _lazy(r"HRKU-" + _lb(5) + r"[A-Za-z0-9_-]{30,}")),
    _Rule("square-token", _lazy(r"sq0(?:atp|csp)-" + _lb(7) + r"[A-Za-z0-9_-]{22,}")),
    _Rule("linear-key", _lazy(r"lin_api_" + _lb(8) + r"[A-Za-z0-9]{40}" + _RB)),
    # More providers' literal prefixes (the red team's formats, tests/data/redteam/).
    _Rule("stripe-webhook-secret", _lazy(r"whsec_" + _lb(6) + r"[A-Za-z0-9]{24,}")),
    _Rule("google-oauth-secret", _lazy(r"GOCSPX-" + _lb(7) + r"[A-Za-z0-9_-]{24,}")),
    _Rule("clojars-token", _lazy(r"CLOJARS_" + _lb(8) + r"[a-f0-9]{40,}")),
    _Rule("onepassword-token", _lazy(r"ops_eyJ" + _lb(7) + r"[A-Za-z0-9_-]{40,}")),
    _Rule("fly-token", _lazy(r"fm[12]_" + _lb(4) + r"[A-Za-z0-9+/_=-]{40,}")),
    _Rule("supabase-token", _lazy(r"sbp_" + _lb(4) + r"[a-f0-9]{40}" + _RB)),
    _Rule("planetscale-token", _lazy(r"pscale_(?:pw|tkn|oauth)_" + _lb(10) + r"[A-Za-z0-9_.-]{30,}")),
    _Rule("databricks-token", _lazy(r"dapi" + _lb(4) + r"[a-f0-9]{32}(?:-[0-9])?" + _RB)),
    _Rule("tailscale-key", _lazy(r"tskey-(?:auth|api|client|webhook)-" + _lb(11) + r"[A-Za-z0-9_-]{20,}")),
    _Rule("square-token", _lazy(r"EAAA" + _lb(4) + r"[A-Za-z0-9_-]{56,}")),
    _Rule("plaid-token", _lazy(r"access-(?:production|development|sandbox)-" + _lb(11) + r"[0-9a-f-]{36}")),
    _Rule("newrelic-key", _lazy(r"NRII-" + _lb(5) + r"[A-Za-z0-9_-]{27,40}" + _RB)),
    _Rule("sentry-token", _lazy(r"sntry[us]_" + _lb(7) + r"[A-Za-z0-9_=+/-]{40,}")),
    _Rule("grafana-token", _lazy(r"gl(?:sa|c)_" + _lb(5) + r"[A-Za-z0-9_=+/-]{32,}")),
    _Rule("replicate-token", _lazy(r"r8_" + _lb(3) + r"[A-Za-z0-9]{37}" + _RB)),
    _Rule("groq-key", _lazy(r"gsk_" + _lb(4) + r"[A-Za-z0-9]{48,}")),
    _Rule("honeycomb-key", _lazy(r"hc(?:a|x)(?:i|m|l)k_" + _lb(6) + r"[A-Za-z0-9]{40,}")),
    _Rule("atlassian-token", _lazy(r"ATATT3" + _lb(6) + r"[A-Za-z0-9_=-]{100,}")),
    _Rule("bitbucket-app-password", _lazy(r"ATBB" + _lb(4) + r"[A-Za-z0-9]{28,}" + _RB)),
    _Rule("figma-token", _lazy(r"figd_" + _lb(5) + r"[A-Za-z0-9_-]{38,}")),
    _Rule("postman-key", _lazy(r"PMAK-" + _lb(5) + r"[a-f0-9]{24}-[a-f0-9]{34}" + _RB)),
    _Rule("contentful-token", _lazy(r"CFPAT-" + _lb(6) + r"[A-Za-z0-9_-]{43}" + _RB)),
    _Rule("typeform-token", _lazy(r"tfp_" + _lb(4) + r"[A-Za-z0-9_-]{40,}")),
    _Rule("airtable-token", _lazy(r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _RB)),
    _Rule(
        "launchdarkly-key",
        _lazy(
            r"(?:sdk|api|mob)-"
            + _lb(4)
            + r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
            + _RB
        ),
    ),
    _Rule("prefect-key", _lazy(r"pnu_" + _lb(4) + r"[A-Za-z0-9]{36}" + _RB)),
    _Rule("clickup-token", _lazy(r"pk_" + _lb(3) + r"[0-9]{6,10}_[A-Z0-9]{32}" + _RB)),
    _Rule("artifactory-key", _lazy(r"AKCp" + _lb(4) + r"[A-Za-z0-9]{69,}")),
    _Rule("facebook-token", _lazy(r"EAA[A-Z][A-Za-z0-9]" + _lb(5) + r"[A-Za-z0-9]{80,}")),
    _Rule("dropbox-token", _lazy(r"sl\.[A-Za-z0-9_-]{2}" + _lb(5) + r"[A-Za-z0-9_-]{100,}")),
    # A hundred characters and more of base58: an access grant, a serialised key (Storj, Solana);
    # last, so a named provider wins a tie.
    _Rule(
        "private-key",
        _lazy(r"(?<![0-9A-Za-z+/=])[1-9A-HJ-NP-Za-km-z]{100,}(?![0-9A-Za-z+/=])"),
        (),
        validate=lambda m: _has_digit_and_letter(m.group(0)) and _mixed_case(m),
    ),
    # A vendor's prefix and a random body, the shape most API keys share (`acme_live_4fK9…`,
    # `xyz-7Hq2…`) whatever the vendor: a short lower-case prefix, a separator, 24+ characters of both
    # cases and digits that read as random (a hex digest, one case only, is not taken).
    _Rule(
        "api-key",
        _lazy(
            r"(?<![A-Za-z0-9_-])[a-z][a-z0-9]{1,11}[_-](?:[a-z]{2,8}[_-])?(?P<v>[A-Za-z0-9]{24,96})"
            r"(?![A-Za-z0-9_-])"
        ),
        (),
        validate=lambda m: _random_body(m.group("v")),
    ),
)


def _random_body(v: str) -> bool:
    upper = sum(c.isupper() for c in v)
    lower = sum(c.islower() for c in v)
    digits = sum(c.isdigit() for c in v)
    return upper >= 3 and lower >= 3 and digits >= 2 and _entropy(v) >= 4.0


def _lb_ok(m: re.Match[str], _width: int) -> bool:
    """A token with no literal prefix starts a word (not the tail of a longer hex run)."""
    start = m.start()
    return start == 0 or not m.string[start - 1].isalnum()


# Credentials given to a command by its own flag (the fifth tuning corpus), and others found by
# their surroundings: (kind, needle, pattern). A rule is opened by any of its needles; the value is
# group `v`.
_SURROUNDED: tuple[tuple[str, str | tuple[str, ...], str], ...] = (
    # A Kubernetes env entry named for a secret, its value on the next line.
    (
        "secret-variable",
        "name:",
        r"(?i)name:[ \t]*[\"']?[A-Z0-9_.-]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|PAT|AUTH|"
        r"CREDENTIALS?)"
        r"[A-Z0-9_]*[\"']?[ \t]*\n[ \t]*value:[ \t]*[\"']?(?P<v>[^\s\"']{4,})",
    ),
    # A secret read out of a cluster, printed on the line below the command.
    ("password", "base64", r"get secret[^\n]*\|[ \t]*base64 -{1,2}d(?:ecode)?[ \t]*\n(?P<v>\S{8,})"),
    # Config files that name a secret and give it after a space.
    ("password", "auth_pass", r"\bauth_pass[ \t]+(?P<v>\S{4,})"),
    (
        "password",
        "md5",
        r"(?:message-digest-key[ \t]+\d+[ \t]+md5|authentication-key)[ \t]+(?P<v>\S{4,})",
    ),
    ("password", "$9$", r"(?P<v>\$9\$[A-Za-z0-9./]{10,})"),
    (
        "password",
        "monitor ",
        r"MONITOR[ \t]+\S+[ \t]+\d+[ \t]+\S+[ \t]+(?P<v>\S{4,})[ \t]+(?:slave|master|primary|"
        r"secondary)",
    ),
    (
        "pin",
        "pin",
        r"[\"']?(?:pin|passcode|setup_?code|"
        r"pairing_?code)[\"']?[ \t]*[:=][ \t]*[\"']?(?P<v>[0-9]{3}-?[0-9]{2}-?[0-9]{3})(?![0-9])",
    ),
    # Z-Wave JS security keys: 32 hex under S0/S2 names.
    ("secret-variable", ("s2_", "s0_"), r"(?i)\"S[02]_\w+\"[ \t]*:[ \t]*\"(?P<v>[0-9A-F]{32})\""),
    # A YubiKey OTP: 44 modhex characters starting with the device id.
    ("token", "cccc", r"(?<![a-z])(?P<v>c{6}[cbdefghijklnrtuv]{38})(?![a-z])"),
    # The answer to a security question.
    ("password", "maiden name", r"(?i)maiden name[ \t]*(?:is|:|=)[ \t]*(?P<v>[^\s.,;]{3,40})"),
    (
        "password",
        "security answer",
        r"(?i)security answer[ \t]*(?:is|:|=)[ \t]*(?P<v>[^\s.,;]{3,40})",
    ),
    # The one line of a password file, below its name ("my ~/.vault_pass.txt contains just:").
    (
        "password",
        "vault_pass",
        r"(?i)(?:vault_pass\w*|\.vault_password)[^\n]{0,60}\n[ \t]*(?P<v>\S{8,})",
    ),
    # Basic credentials written out before they are encoded: base64("id:secret").
    ("password", "base64(", r"base64\([\"'][^\"':\s]+:(?P<v>[^\"'\s]{8,})[\"']\)"),
    # Loggly's customer token, in an rsyslog template's structured data (its enterprise number).
    (
        "api-key",
        "@41058",
        r"\[(?P<v>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@41058",
    ),
    # A pgbouncer userlist line: the user, then the password (not an md5 or SCRAM hash).
    ("password", '" "', r"(?m)^[ \t]*\"[\w.@-]+\"[ \t]+\"(?P<v>(?!md5|SCRAM-)[^\"\s]{6,})\"[ \t]*$"),
    # Commands that take a secret as an argument of their own.
    ("command-password", "mysql", r"mysql\b[^\n|;&]*?[ \t]-p(?P<q>['\"])(?P<v>[^'\"\n]{4,})(?P=q)"),
    ("command-password", "hdbsql", r"hdbsql\b[^\n|;&]*?[ \t]-p[ \t]+(?P<v>\S{4,})"),
    ("command-password", "--pass ", r"--pass[ \t]+['\"]?(?P<v>[^\s'\"]{6,})"),
    ("command-password", "taos", r"taos\b[^\n|;&]*?[ \t]-p(?P<v>[^\s'\"]{4,})"),
    ("command-password", "/secure set", r"/secure[ \t]+set[ \t]+\S+[ \t]+(?P<v>\S{4,})"),
    ("command-password", "-supw", r"-supw[ \t]+(?P<v>\S{4,})"),
    ("api-key", "shodan init", r"shodan[ \t]+init[ \t]+(?P<v>[A-Za-z0-9]{16,})"),
    ("api-key", "sem connect", r"sem[ \t]+connect[ \t]+\S+[ \t]+(?P<v>[A-Za-z0-9]{16,})"),
    ("api-key", "anaconda", r"anaconda\b[^\n|;&]*?[ \t](?:-t|--token)[ \t]+(?P<v>\S{12,})"),
    (
        "license-key",
        "-k ",
        r"(?:install-license|licenses activate)[ \t]+-k[ "
        r"\t]+(?P<v>[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,5})",
    ),
    (
        "license-key",
        "license",
        r"vimsvc/license[ \t]+--set[ \t]+(?P<v>[A-Z0-9]{5}(?:-[A-Z0-9]{5}){4})",
    ),
    (
        "license-key",
        "nse",
        r"(?i)licen[cs]e(?: key)?[ \t]*:[ \t]*(?P<v>(?-i:[A-Z0-9]{4,5}(?:-[A-Z0-9]{4,5}){3,5}))",
    ),
    (
        "license-key",
        "installationkey",
        r"(?i)fileInstallationKey[ \t]*=[ \t]*(?P<v>[0-9]{5}(?:-[0-9]{5}){3,})",
    ),
    (
        "license-key",
        "t code",
        r"(?i)(?:claim|wallet|gift card|redeem|voucher|"
        r"gift) code[^\n]{0,30}?(?P<v>(?-i:[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){2,4}))",
    ),
    (
        "bank-account",
        "bsb",
        r"(?i)(?:sort code|bsb)[^\n0-9]{0,20}?(?P<v>[0-9]{2,3}-[0-9]{2,3}(?:-[0-9]{2})?[ "
        r"\t]+[0-9]{6,10})",
    ),
    ("bank-account", "a/c", r"(?i)a/c(?: no\.?| number)?[ \t]*:?[ \t]*(?P<v>[0-9]{9,18})"),
    ("api-key", "account login", r"account[ \t]+login[ \t]+(?P<v>[0-9]{12,20})"),
    # A URL whose user is a token (`https://5YCs…@push.fury.io`), a stream key, a function key.
    ("url-password", "://", r"https?://(?P<v>[A-Za-z0-9_-]{16,})@[\w.-]+"),
    ("api-key", "rtmp", r"rtmps?://[^\s/]+/live2?/(?P<v>[A-Za-z0-9-]{12,})"),
    ("api-key", "code=", r"[?&]code=(?P<v>[A-Za-z0-9_-]{30,}={0,2})"),
    (
        "url-password",
        "-u ",
        r"(?:^|[ \t])-u[ \t]+['\"]?(?P<v>(?=[^:\s'\"]*[0-9])[A-Za-z0-9_.-]{16,}):[ \t'\"]",
    ),
    # A password in a connection URL that holds a '#' or a '$'.
    (
        "url-password",
        "://",
        r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{1,15}://[^:/\s@\"']{1,64}:(?P<v>[^@\s/\"']{0,64}["
        r"#$][^@\s/\"']{0,64})@[\w.-]+",
    ),
    # Keys and tokens by their prefix.
    ("api-key", "absk", r"(?<![A-Za-z0-9])(?P<v>ABSK[A-Za-z0-9+/=]{40,})"),
    ("api-key", "_gsk_", r"(?<![A-Za-z0-9])(?P<v>(?:live|test)_g?sk_[A-Za-z0-9]{16,})"),
    ("password", ":::", r":[0-9a-f]{32}:(?P<v>[0-9a-f]{32}):::"),
    ("api-key", "incoming+", r"incoming\+[a-z0-9-]+?-(?P<v>[a-z0-9]{20,})-issue"),
    # (the comment above the key too: it is the key file's first line, and says whose key it is)
    ("private-key", "signify", r"(?P<v>untrusted comment: signify secret key[ \t]*\n\S{40,})"),
    (
        "private-key",
        "contents",
        r"(?i)(?:file contents|contains(?: just)?|"
        r"output of `?base64[^\n]*)[ \t]*:?[ \t]*\n(?P<v>(?:[A-Za-z0-9+/=]{40,}[ \t]*\n?){1,60})",
    ),
    # An XML element named for a password (FileZilla's <Pass>, a config's <password>).
    (
        "password",
        "<pass",
        r"(?i)<(?:pass|password|passwd|secret|token|apikey)\b[^>]*>(?P<v>[^<]{4,})</",
    ),
    ("command-password", "net user", r"(?i)net[ \t]+user[ \t]+\S+[ \t]+(?P<v>[^\s/*]{4,})[ \t]+/add"),
    ("password", "walletpassphrase", r"walletpassphrase[ \t]+[\"'](?P<v>[^\"'\n]{4,})[\"']"),
    ("api-key", "wordpress_logged_in_", r"wordpress_logged_in_[0-9a-f]{32}=(?P<v>[^;\s\"']{16,})"),
    ("private-key", '"d"', r"\"d\"[ \t]*:[ \t]*\"(?P<v>[A-Za-z0-9_-]{32,})\""),
    (
        "private-key",
        "signingkey",
        r"SigningKey[^\n]*\n(?:[^\n]*\n){0,2}[^\n]*\"cborHex\"[ \t]*:[ \t]*\"(?P<v>[0-9a-f]{64,})\"",
    ),
    ("api-key", "macaroon", r"(?i)macaroon[^\n]{0,120}\n?[ \t]*(?P<v>[0-9a-f]{64,})"),
    ("url-password", "aws://", r"aws://[^:\s/]+:(?P<v>[^@\s]{16,})@"),
    ("api-key", "auth_token", r"(?<![A-Za-z0-9])AC[0-9a-f]{32},(?P<v>[0-9a-f]{32})(?![0-9a-f])"),
    (
        "webhook",
        "hooks.slack.com",
        r"(?i)hooks\.slack\.com(?:/|%2F)services(?:/|%2F)(?P<v>T[A-Z0-9]+(?:/|%2F)B[A-Z0-9]+(?:/|"
        r"%2F)[A-Za-z0-9]{16,})",
    ),
    # A secret in an Apple property list: the key names it, the string holds it.
    (
        "api-key",
        "</key>",
        r"<key>[^<]*(?:Secret|Token|Password|ApiKey|APIKey|"
        r"PrivateKey)[^<]*</key>[ \t]*\n?[ \t]*<string>(?P<v>[^<\s]{8,})</string>",
    ),
    # A cookie or session handed on in YAML: the value under its name.
    (
        "api-key",
        "name:",
        r"(?i)name:[ \t]*[\"']?(?:myacinfo|dqsid|"
        r"[a-z_]*session[a-z_]*)[\"']?[ \t]*\n[ \t]*value:[ \t]*[\"']?(?P<v>[^\s\"']{16,})",
    ),
    # Seed words after a word for them: "seed: click bread close …", "share 1:\n analysis blue …".
    (
        "seed-phrase",
        ("seed", "mnemonic", "recovery ", "share ", "backup ", "secret phrase", "passphrase", "paper key"),
        r"(?i)(?:seed|mnemonic|recovery (?:phrase|words|sheet)|share \d|backup (?:phrase|sheet)|"
        r"secret phrase|passphrase|paper key)[^\n]{0,100}\n?[^\n]{0,60}?"
        r"(?P<v>(?:\b[a-z]{3,9}[ \t\n]+){11,24}[a-z]{3,9}\b)",
    ),
    (
        "seed-phrase",
        "mnemonic",
        r"(?i)(?:mnemonic)[^\n]{0,100}\n?[^\n]{0,60}?(?P<v>(?:\b[a-z]{3,9}[ "
        r"\t]+){11,24}[a-z]{3,9}\b)",
    ),
    (
        "seed-phrase",
        "share ",
        r"(?i)(?:share \d)[^\n]{0,100}\n?[^\n]{0,60}?(?P<v>(?:\b[a-z]{3,9}[ "
        r"\t]+){11,24}[a-z]{3,9}\b)",
    ),
    # Private keys in blocks other than PEM's: NATS credentials, SSH.com's, OpenVPN's static key.
    (
        "private-key",
        "begin nats",
        r"-{4,5}[ \t]?BEGIN[ \t]NATS USER JWT[ \t]?-{4,5}"
        r"(?P<v>[\s\S]{10,6000}?)(?:-{4,5}[ \t]?END|\Z)",
    ),
    (
        "private-key",
        "begin user nkey",
        r"-{4,5}[ \t]?BEGIN[ \t]USER NKEY SEED[ \t]?-{4,5}"
        r"(?P<v>[\s\S]{10,6000}?)(?:-{4,5}[ \t]?END|\Z)",
    ),
    (
        "private-key",
        "begin openvpn",
        r"-{4,5}[ \t]?BEGIN[ \t]OpenVPN Static key V1[ \t]?-{4,5}"
        r"(?P<v>[\s\S]{10,6000}?)(?:-{4,5}[ \t]?END|\Z)",
    ),
    (
        # The file `openvpn --genkey` writes, whole: its comment, the armour, the key.
        "private-key",
        "begin openvpn",
        r"(?P<v>#[ \t]*\r?\n#[ \t]*[0-9]+ bit OpenVPN static key[ \t]*\r?\n#[ \t]*\r?\n"
        r"-{4,5}[ \t]?BEGIN[ \t]OpenVPN Static key V1[ \t]?-{4,5}[\s\S]{10,6000}?"
        r"-{4,5}[ \t]?END[ \t]OpenVPN Static key V1[ \t]?-{4,5})",
    ),
    (
        "private-key",
        "minisign",
        r"(?P<v>untrusted comment: minisign (?:encrypted )?secret key[ \t]*\n\S{40,})",
    ),
    ("command-password", "ipmitool", r"ipmitool\b[^\n|;&]*?[ \t]-P[ \t]+[\"']?(?P<v>[^\s\"']{4,})"),
    (
        "command-password",
        "snmp",
        r"snmp(?:walk|bulkwalk|get|getnext|bulkget|set|table|trap|netstat|df)\b[^\n|;&]*?"
        r"[ \t]-[cAX][ \t]+[\"']?(?P<v>[^\s\"']{4,})",
    ),
    ("command-password", "-password", r"(?<![\w-])-password[ \t=]+[\"']?(?P<v>[^\s\"']{4,})"),
    ("license-key", "-serial", r"(?<![\w-])-serial[ \t=]+(?P<v>[A-Z0-9]{2}(?:-[A-Z0-9]{4}){3,5})"),
    (
        "command-password",
        "net use",
        r"net[ \t]+use\b[^\n]*?[ \t]\\\\\S+[ \t]+(?P<v>[^\s/\"']{4,})[ \t]+/user",
    ),
    ("license-key", "/ipk", r"/ipk[ \t]+(?P<v>(?:[A-Z0-9]{5}-){4}[A-Z0-9]{5})"),
    ("password", "psk", r"\bPSK[ \t]+[\"'](?P<v>[^\"'\n]{4,})[\"']"),
    ("password", "key content", r"Key Content[ \t]*:[ \t]*(?P<v>\S{4,})"),
    ("api-key", "local key", r"local[ _]key[ \t]*[:=]?[ \t]+(?P<v>\S{8,})"),
    ("api-key", "contribsys", r"contribsys\.com[ \t:=]+(?P<v>[0-9a-f]{8}:[0-9a-f]{8})"),
    ("api-key", "ser.", r"(?<![\w.])(?P<v>ser\.[A-Za-z0-9]{20,})"),
    # "client_id 94f8… / secret 671c…": a secret named, then a long run of hex or base62
    ("api-key", "secret ", r"\bsecret[ \t]+(?P<v>(?=[A-Za-z]*[0-9])[A-Za-z0-9]{24,})(?![A-Za-z0-9])"),
    # Indonesian: "password vps-nya C4ctus80#"
    ("password", "-nya", r"password[ \t]+\S+-nya[ \t]+(?P<v>[^\s,;]{6,})"),
    (
        "secret-variable",
        "dockerconfigjson",
        r"\.dockerconfigjson[\"']?[ \t]*:[ \t]*[\"']?(?P<v>[A-Za-z0-9+/=]{20,})",
    ),
    # The same value as a YAML block, wrapped at 76 columns the way `base64` prints it.
    (
        "secret-variable",
        "dockerconfigjson",
        r"\.dockerconfigjson[\"']?[ \t]*:[ \t]*[|>][-+]?[ \t]*\n"
        r"(?P<v>(?:[ \t]+[A-Za-z0-9+/=]{16,}[ \t]*(?:\n|$))+)",
    ),
    # openvpn --auth-user-pass reads a file of two lines: the user, then the password.
    ("password", "auth-user-pass", r"auth-user-pass[^\n]*\n[ \t]*\S+[ \t]*\n[ \t]*(?P<v>\S{4,})"),
    # The same rules opened by their other words.
    (
        "license-key",
        "m code",
        r"(?:claim|redeem|redemption|voucher|gift card|activation) code[^\n]{0,30}?"
        r"(?P<v>(?-i:[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){2,4}))",
    ),
    (
        "bank-account",
        "sort code",
        r"sort code[^\n0-9]{0,20}?(?P<v>[0-9]{2}-[0-9]{2}-[0-9]{2}[ \t]+[0-9]{8})(?![0-9])",
    ),
    # `net use Z: \\host\share /user:DOMAIN\name password`
    (
        "command-password",
        "net use",
        r"net[ \t]+use\b[^\n]*?[ \t]/user:\S+[ \t]+(?P<v>[^\s/\"'*]{4,})(?=[ \t]|$)",
    ),
    # An eBay Cert ID; a Yandex Cloud IAM token; a Zcash spending key; an AG Grid licence.
    (
        "api-key",
        ("prd-", "sbx-"),
        r"(?<![A-Za-z0-9])(?P<v>(?-i:PRD|SBX)-[0-9a-f]{12}(?:-[0-9a-f]{4}){4})(?![0-9a-f])",
    ),
    ("token", "t1.", r"(?<![A-Za-z0-9.])(?P<v>(?-i:t1)\.[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{20,})"),
    (
        "private-key",
        "secret-extended-key-",
        r"(?P<v>secret-extended-key-(?:main|test)1[0-9a-z]{100,})",
    ),
    ("license-key", "using_this_", r"(?P<v>Using_this_[^\s\"']{40,})"),
    # JSON written out in hex (`7b22…`, `{"`): a wallet's exported key (`lotus wallet export`).
    ("private-key", "7b22", r"(?<![0-9a-f])(?P<v>7b22[0-9a-f]{96,})(?![0-9a-f])"),
    # A one-time code read out in two groups ("the code, it's 879 246").
    (
        "pin",
        "code",
        r"\bcode\b[^\n0-9]{0,20}?(?<![0-9])(?P<v>[0-9]{3}[ -][0-9]{3})(?![0-9]|[ -][0-9])",
    ),
    # More secrets by their surroundings (the fourteenth corpus).
    (
        "bank-account",
        "account number",
        r"account (?:number|no\.?)[ \t]*(?:is[ \t]+|:[ \t]*)?(?P<v>[0-9]{8,17})(?![0-9])",
    ),
    (
        "secret-variable",
        "<name>",
        r"<name>[^<]*(?:secret|password|passwd|token|credential)[^<]*</name>\s*<value>(?P<v>"
        r"[^<]{4,})</value>",
    ),
    ("api-key", "cg-", r"(?<![A-Za-z0-9])(?P<v>(?-i:CG)-[A-Za-z0-9]{24,})"),
    ("api-key", "$aact_", r"\$(?P<v>aact_[A-Za-z0-9_:$-]{20,})"),  # the `$` would read as a variable
    (
        "api-key",
        ("secret_live_", "secret_test_"),
        r"(?<![A-Za-z0-9])(?P<v>secret_(?:live|test)_[A-Za-z0-9.]{16,})",
    ),
    ("api-key", "dns cloudflare", r"dns[ \t]+cloudflare[ \t]+(?P<v>[A-Za-z0-9_-]{30,})"),
    ("token", ".p4tickets", r"=[\w.-]+:(?P<v>[0-9A-F]{32})(?![0-9A-F])"),
    ("password", "password for '", r"password for '[^'\n]+':[ \t]*(?P<v>\S{6,})"),
    # Keys typed at a password prompt: tmux's `send-keys … 'mysql -u root -p' Enter` and then the
    # password's own `send-keys`; an expect script's `send` after it expects the prompt.
    (
        "command-password",
        "send-keys",
        r"send-keys\b[^\n]*?(?:[ \t]-p|[ \t]-W|\bsudo\b[^'\"\n]*|\bsu\b[^'\"\n]*|\bpasswd)['\"][ \t]+"
        r"(?:Enter|C-m)\b[\s\S]{0,160}?send-keys\b[^'\"\n]*['\"](?P<v>[^'\"\s]{4,128})['\"][ \t]+"
        r"(?:Enter|C-m)",
    ),
    (
        "password",
        # (found by the `send` after it: "expect" is a word of every other sentence)
        ('send "', "send '", "send -- ", "send {"),
        r"expect[ \t]+(?:-[a-z]+[ \t]+)?[\"'{][^\"'{}\n]*(?:assword|assphrase|passcode|\bPIN\b)[^\"'{}\n]*"
        r"[\"'}][ \t]*(?:\{[ \t]*|\r?\n[ \t]*|;[ \t]*)send[ \t]+(?:--[ \t]+)?[\"'{]"
        # (not `$pass` nor `[exec …]`: a variable's or a command's value, which Tcl substitutes)
        r"(?P<v>[^\"'{}\n\\$\[][^\"'{}\n\\]{1,127})(?:\\[rn])?[\"'}]",
    ),
    # A Deluge auth file: `user:password:level`, one account a line.
    ("password", "deluge", r"(?m)^[ \t]*[\w.-]+:(?P<v>[^:\s]{4,128}):[0-9]{1,2}[ \t]*\r?$"),
    # A number said to be a key or a passphrase: groups of digits, or one long run.
    (
        "credential",
        "digit",
        r"[0-9]+-digit[ \t]+(?:key|passphrase|code|pin|password)[^\n0-9]{0,40}?(?P<v>[0-9]{4"
        r",6}(?:[ -][0-9]{4,6}){3,}|[0-9]{20,})",
    ),
    # A KeePass key file's key; the password Jenkins prints at its first start.
    (
        "private-key",
        "<data",
        r"<Key>\s*<Data(?:[ \t]+Hash=\"[0-9A-F]+\")?>\s*(?P<v>[0-9A-Fa-f "
        r"\t\r\n]{32,}?|[A-Za-z0-9+/=]{32,})\s*</Data>",
    ),
    (
        "password",
        "proceed to installation",
        r"proceed to installation:\s*(?P<v>[0-9a-f]{32})(?![0-9a-f])",
    ),
    # Bundler's credentials for a gem server: `bundle config gems.example.com user:pass`,
    # `BUNDLE_GEMS__EXAMPLE__COM=user:pass`.
    (
        "credential",
        "bundle config",
        r"bundle config(?:[ \t]+set)?(?:[ \t]+--global)?[ \t]+[\w.-]+\.[a-z]+[ "
        r"\t]+(?P<v>[^\s:]+:[^\s]{4,})",
    ),
    (
        "credential",
        "bundle_",
        r"(?<![A-Za-z0-9_])BUNDLE_[A-Z0-9_]*__[A-Z0-9_]+=[\"']?(?P<v>[^\s:\"']+:[^\s\"']{4,})",
    ),
    # A test reporter's id is its token; so is a ThingsBoard device's MQTT user name.
    ("token", "reporter_id", r"TEST_REPORTER_ID[\"']?[ \t]*[:=][ \t]*[\"']?(?P<v>[0-9a-f]{64})"),
    (
        "token",
        "mosquitto_",
        r"mosquitto_(?:pub|sub)\b[^\n]*?[ \t]-u[ \t]+[\"']?(?P<v>(?=[a-z]*[0-9])[A-Za-z0-9]{"
        r"20})(?![A-Za-z0-9])",
    ),
    # A serial number in groups of digits, given to an installer.
    (
        "license-key",
        "serial",
        r"serial_?(?:number|no|key)?[\"']?[ \t]*[:=][ \t]*[\"']?(?P<v>[0-9A-Z]{4}(?:-[0-9A-Z"
        r"]{4}){3,5})(?![0-9A-Z])",
    ),
    # A licence assigned a random-looking value (`$license = 'Owned-64fa…'`, not `license = "MIT"`).
    (
        "license-key",
        "license",
        r"license(?:_?key)?[\"']?[ \t]*[:=][ \t]*[\"'](?P<v>(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-"
        r"]{20,128})[\"']",
    ),
    # A cookie in a HAR file: its name says it is a session, its value follows.
    (
        "session-cookie",
        '"name"',
        r"\"name\":[ \t]*\"[^\"]*(?:sess|sid|auth|token|jwt)[^\"]*\",[ \t]*\"value\":[ "
        r"\t]*\"(?P<v>[^\"]{16,})\"",
    ),
    (
        "license-key",
        "begin license",
        # the armour too: a licence's block is the licence
        r"(?P<v>-{3,}[ \t]*BEGIN LICENSE(?: KEY)?[ \t]*-{3,}[\s\S]{10,2000}?"
        r"(?:-{3,}[ \t]*END LICENSE(?: KEY)?[ \t]*-*|\Z))",
    ),
)

# Secrets found by their surroundings; case-sensitive literals searched in the whole text.
_CONTEXT_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private-key",
        _lazy(
            r"-----BEGIN[ ](?:[A-Z0-9]+[ ])*PRIVATE[ ]KEY(?:[ ]BLOCK)?-----"
            + _NL
            + r"*(?:[A-Za-z][A-Za-z0-9-]*:[^\r\n\\]*"  # armour headers (Proc-Type:, Version:)
            + _NL
            + r"+)*[A-Za-z0-9+/=]{16}"  # a body must follow
            + r"[\s\S]*?(?:"
            + _PEM_END
            + r"|\Z)"
        ),
        ("-----BEGIN ",),
    ),
    _Rule(
        "slack-webhook",
        _lazy(r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9_/-]{20,})"),
        ("hooks.slack.com/",),
        group="v",
    ),
    _Rule(
        "discord-webhook",
        _lazy(r"discord(?:app)?\.com/api/webhooks/[0-9]+/(?P<v>[A-Za-z0-9_-]{30,})"),
        ("discord",),
        group="v",
    ),
    _Rule(
        "azure-storage-key",
        _lazy(r"AccountKey=(?P<v>[A-Za-z0-9+/]{80,}={0,2})"),
        ("AccountKey=",),
        group="v",
    ),
    _Rule(
        "telegram-bot-token",
        _lazy(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}" + _RB),
        (":AA",),
    ),
    _Rule(
        "sentry-dsn",
        _lazy(r"://(?P<v>[0-9a-f]{32})(?::[0-9a-f]{32})?@[A-Za-z0-9.-]*sentry"),
        ("sentry",),
        group="v",
    ),
    _Rule(
        "azure-sas",
        _lazy(r"[?&]sig=(?P<v>[A-Za-z0-9%+/=]{20,})"),
        ("sig=",),
        group="v",
    ),
    _Rule(
        "putty-key",
        _lazy(r"PuTTY-User-Key-File-[0-9]+:[\s\S]*?(?:Private-(?:MAC|Hash):[ \t]*[0-9a-fA-F]+|\Z)"),
        ("PuTTY-User-Key-File-",),
    ),
    _Rule(
        "azure-ad-secret",
        _lazy(r"(?<![A-Za-z0-9_.~-])[A-Za-z0-9_.-]{3}[0-9]Q~[A-Za-z0-9_.~-]{31,34}(?![A-Za-z0-9_.~-])"),
        ("Q~",),
    ),
    _Rule(
        "twitter-bearer",
        _lazy(r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,}"),
        ("AAAAAAAAAAAAAAAAAAAAA",),
    ),
    _Rule(
        "api-key",
        # A random-looking literal handed to a client (`cohere.Client("LugXOhoXy…")`): a key in code.
        _lazy(r"\w\([ \t]*[\"'](?P<v>[A-Za-z0-9]{32,64})[\"'][ \t]*[,)]"),
        ('("', "('"),
        group="v",
        validate=lambda m: (
            _mixed_case(m) and any(c.isdigit() for c in m.group("v")) and _entropy(m.group("v")) >= 4.3
        ),
    ),
    _Rule(
        "token",
        # A JWT a log or a narrow pane wrapped over lines: the first line and each line of token
        # characters after it.
        _lazy(r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_.-]*(?:\r?\n[A-Za-z0-9_.-]{20,}(?![A-Za-z0-9_.-]))+"),
        ("eyj",),
    ),
    _Rule(
        "private-key",
        # A NATS credentials file, whole: the user JWT, the warning between, the seed.
        _lazy(r"-----BEGIN NATS USER JWT-----[\s\S]{10,8000}?-{5,6}END USER NKEY SEED-{5,6}"),
        ("begin nats user jwt",),
    ),
    _Rule(
        "private-key",
        # A key in SSH.com's format, header and comment included (they say whose key it is).
        _lazy(
            r"-{4} BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY -{4}[\s\S]{10,8000}?(?:-{4} END SSH2 [A-Z ]*KEY "
            r"-{4}|\Z)"
        ),
        ("begin ssh2",),
    ),
    _Rule(
        "one-time-code",
        # A TOTP secret shown in groups of four for typing by hand ("7ch2 4cl5 ywhb r7sc …").
        _lazy(r"(?i)(?<![a-z0-9])(?P<v>(?:[a-z2-7]{4} ){7}[a-z2-7]{4})(?![a-z0-9])"),
        ("2fa", "totp", "otp", "authenticator", "mfa", "two-factor"),
        group="v",
        validate=lambda m: sum(any(c in "234567" for c in g) for g in m.group("v").split()) >= 3,
    ),
    _Rule(
        "card-number",
        # A card named in words ("карта Мир 2200…", "cartão Elo 6363…", "TROY kartım 9792…"): sixteen
        # digits that pass the Luhn check.
        _lazy(
            r"(?i)(?:card|karta|kart|cartão|cartao|tarjeta|carte|卡号|卡號|"
            r"карта)[^\n0-9]{0,20}?(?P<v>[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4})(?![0-9])"
        ),
        ("card", "kart", "cart", "tarjeta", "carte", "卡", "карта"),
        group="v",
        validate=lambda m: _luhn(re.sub(r"[ -]", "", m.group("v"))),
    ),
    _Rule(
        "session-cookie",
        # A login session kept in a cookie: whoever holds it is signed in (`li_at=…`, `sp_dc=…`,
        # `__Secure-1PSID=…`, `.AspNetCore.Identity.Application=…`, Facebook's `xs=…`).
        _lazy(
            r"(?<![\w.-])(?:(?:[a-z0-9]+_)*(?:li_at|sp_dc)|__(?:secure|host)-[\w.-]*?(?:psid|sid|ses"
            r"sion[\w.-]*)|"
            r"\.aspnetcore\.[\w.]+|\.aspxauth|xs|datr|connect\.sid|laravel_session|_gh_sess|user_session|"
            r"remember_token|remember_web_[\w]+|auth_token|ct0)[ \t]*[=:][ \t]*[\"']?(?P<v>[^\s;,'\"]{16,})",
            re.I | re.A,
        ),
        (
            "li_at",
            "sp_dc",
            "__secure-",
            "__host-",
            "aspnetcore.",
            "aspxauth",
            "xs=",
            "datr",
            "connect.sid",
            "laravel_session",
            "gh_sess",
            "user_session",
            "remember_",
            "auth_token",
            "ct0",
        ),
        group="v",
        validate=lambda m: _has_digit_and_letter(m.group("v")) and not _is_placeholder(m.group("v")),
    ),
    _Rule(
        "symmetric-key",
        # ntp.keys and chrony.keys: `<id> <digest> [HEX:|ASCII:]<key>` on a line of its own.
        _lazy(
            r"(?m)^[ \t]*[0-9]{1,5}[ \t]+(?:md5|sha1?|sha224|sha256|sha384|sha512|aes128cmac|aes256cmac|"
            r"aes-128-cmac|aes-256-cmac|m)[ \t]+(?:hex:|ascii:)?(?P<v>\S{8,})",
            re.I | re.A,
        ),
        ("sha", "md5", "cmac"),
        group="v",
    ),
    _Rule(
        "webhook-url",
        # Push and webhook services whose URL path is the key: ServerChan, Bark, QuickNode, Tines.
        _lazy(
            r"(?:sctapi\.ftqq\.com/|api\.day\.app/|\.quiknode\.pro/|\.tines\.com/webhook/[\w-]+/)"
            r"(?P<v>[A-Za-z0-9_-]{16,})",
            re.I | re.A,
        ),
        ("ftqq.com", "day.app", "quiknode.pro", "tines.com"),
        group="v",
    ),
    _Rule(
        "cloud-secret-key",
        # An access key id and its secret side by side: `KEYID:SECRET` (s3fs, .passwd-s3fs) or a
        # credentials CSV row (`…,AKIA…,<secret>,…`).
        _lazy(
            r"(?<![A-Za-z0-9])[A-Z0-9]{20}[\"']?[ \t]*[:,;|\t][ \t\r\n]*[\"']?"
            r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
            re.A,
        ),
        ("akia", "asia", "s3fs", "aws", "access key"),
        group="v",
        validate=lambda m: _has_digit_and_letter(m.group(0)[:20]) and _random_looking(m.group("v")),
    ),
    _Rule(
        "password",
        # Windows answer files: `<AdministratorPassword><Value>…</Value>`, `<Password><Value>…`.
        _lazy(r"<[\w:]*password>[ \t\r\n]*<value>(?P<v>[^<\s]{4,})</value>", re.I | re.A),
        ("password>",),
        group="v",
    ),
    _Rule(
        "private-key",
        # A JSON Web Key's private or symmetric parts (`"k"`, `"d"`, `"p"`, `"q"`, `"dp"`, `"dq"`, `"qi"`).
        _lazy(r"\"(?:k|d|p|q|dp|dq|qi)\"[ \t]*:[ \t]*\"(?P<v>[A-Za-z0-9_-]{32,})\"", re.A),
        ('kty"',),
        group="v",
    ),
    _Rule(
        "private-key",
        # A Tink keyset in clear text: each key's `"value"` is the key material.
        _lazy(r"\"value\"[ \t]*:[ \t]*\"(?P<v>[A-Za-z0-9+/_-]{24,}={0,2})\"", re.A),
        ('keydata"', 'typeurl"'),
        group="v",
    ),
    _Rule(
        "recovery-key",
        # Matrix's secure backup key: 12 groups of 4 base58 characters, starting "Es".
        _lazy(
            r"(?<![1-9A-HJ-NP-Za-km-z])E[s-u][1-9A-HJ-NP-Za-km-z]{2}"
            r"(?:[ ]?[1-9A-HJ-NP-Za-km-z]{4}){8,11}(?![1-9A-Za-z])"
        ),
        ("recovery", "security key", "backup key", "matrix", "element"),
    ),
    _Rule(
        "url-password",
        # A token given as a URL's user with no password (`https://a6a4…:@packagecloud.io`).
        _lazy(r"https?://(?P<v>[A-Za-z0-9_-]{20,}):@"),
        ("://",),
        group="v",
        validate=lambda m: _random_looking(m.group("v")),
    ),
    _Rule(
        "webhook",
        # Webhook URLs whose path is the secret: IFTTT's key, Zapier's and Make's hooks, a reset link.
        _lazy(
            r"(?:maker\.ifttt\.com/trigger/[\w-]+/with/key/|hooks\.zapier\.com/hooks/catch/|"
            r"hook\.[a-z0-9]+\.make\.com/|/reset-password/|[;?&]jsessionid=)(?P<v>[A-Za-z0-9_/-]{12,})",
            re.I,
        ),
        ("ifttt.com", "zapier.com", "make.com", "/reset-password/", "jsessionid="),
        group="v",
    ),
    _Rule(
        "command-password",
        # Clients that take the password or key by a short flag: mosquitto -P, cloudsmith -k.
        _lazy(
            r"(?:mosquitto_(?:pub|sub|rr)\b[^\n|;&]*?[ \t]-P|cloudsmith\b[^\n|;&]*?[ \t](?:-k|--api-key))"
            r"[ \t=]+[\"']?(?P<v>[^\s\"']{6,})"
        ),
        ("mosquitto_", "cloudsmith"),
        group="v",
    ),
    _Rule(
        "command-password",
        # lftp takes the user and the password as one argument: `lftp -u user,PASSWORD host`.
        _lazy(r"lftp\b[^\n|;&]*?[ \t]-u[ \t]+[^,\s]+,(?P<v>[^\s\"']{4,})"),
        ("lftp",),
        group="v",
    ),
    _Rule(
        "secret-variable",
        # A secret named in the environment with a literal to fall back on: the literal is the secret
        # (`process.env.JWT_SECRET ?? 'Rf1w…'`, `os.getenv("API_KEY", "sk_…")`, `ENV.fetch("X_TOKEN", "…")`).
        _lazy(
            r"(?:process\.env\.|os\.environ\.get\([ \t]*[\"']|os\.getenv\([ \t]*[\"']|"
            r"env\.fetch\([ \t]*[\"']|getenv\([ \t]*[\"']|\benv\([ \t]*[\"'])"
            r"[A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?)[A-Za-z0-9_]*"
            r"[\"']?[ \t]*\)?"
            r"[ \t]*(?:\?\?|\|\||,|\bor\b)[ \t]*[\"'](?P<v>[^\"'\n]{6,256})[\"']",
            re.I | re.A,
        ),
        ("process.env.", "environ.get(", "getenv(", "env.fetch(", "env("),
        group="v",
        validate=lambda m: not _is_placeholder(m.group("v")) and not m.group("v").startswith(("$", "http")),
    ),
    _Rule(
        "password",
        # A client's login call with the password as its second literal (`s.login("me@x.com", "uuhj …")`).
        _lazy(
            r"\.(?:login|auth|authenticate|sign_?in|signInWithPassword)\("
            r"[ \t]*[\"'][^\"'\n]{1,120}[\"'][ \t]*,"
            r"[ \t]*[\"'](?P<v>[^\"'\n]{4,128})[\"']",
            re.I | re.A,
        ),
        (".login(", ".auth(", ".authenticate(", ".sign", "signinwithpassword("),
        group="v",
        validate=lambda m: not _is_placeholder(m.group("v")),
    ),
    _Rule(
        "password", _lazy(_ANSWER, re.I), ("answer", "antwort", "respuesta"), group="v", validate=_answer_ok
    ),
    _Rule(
        "password",
        # The answer to an account's security question: as good as its password.
        _lazy(
            r"(?:security (?:question|answer)|maiden name|first pet|name of (?:your|my) (?:first )?pet|"
            r"first school|childhood (?:friend|street|nickname)|favou?rite teacher|"
            r"city (?:you were|i was) born)"
            r"[^\n]{0,80}?(?:answer is|answer:|it's|it is|is|=|:)[ \t]+[\"'“]?"
            r"(?P<v>(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+){0,2})",
            re.I,
        ),
        (
            "security question",
            "security answer",
            "maiden name",
            "first pet",
            "pet",
            "first school",
            "childhood",
            "teacher",
            "born",
        ),
        group="v",
    ),
    _Rule(
        "url-password",
        # A URL whose user part is a password or a token (`trojan://Ember!…@host`, `ss://<base64>@`,
        # `https://ghp_…@github.com`): one chosen or random word, not `git@` or a user name.
        _lazy(r"\b[a-z][a-z0-9+.-]{1,15}://(?P<v>[^\s:/@?#\"'`<>]{8,200})@[\w.-]+", re.I | re.A),
        ("://",),
        group="v",
        validate=lambda m: _password_shaped(m.group("v")) or _random_looking(m.group("v")),
    ),
    _Rule(
        "command-password",
        # Oracle's tools take `user/password@service` (`sqlplus system/…@//db:1521/ORCL`).
        _lazy(
            r"\b(?:sqlplus|rman|expdp|impdp|sqlldr|dgmgrl|sqlcl|sql)(?:[ \t]+-\w+)*[ \t]+[\w$#.]+/"
            r"(?P<v>[^\s/@\"']{4,64})@",
            re.I | re.A,
        ),
        ("sqlplus", "rman", "expdp", "impdp", "sqlldr", "dgmgrl", "sqlcl", "sql "),
        group="v",
    ),
    _Rule(
        "command-password",
        # Any command's password flag (`racadm -p 'm4ng0…'`, `PsExec -p gecko34-…`, `schtasks /RP …`,
        # `skopeo --src-creds robot:…`): `-p` is a port, a path or a package as often, so the value
        # must look like a password (`_password_shaped`).
        _lazy(
            # (the flag's first character first, then what stands before it: a pattern that opens
            # with a look-behind is tried at every place of a text)
            r"[-/+](?<![\w-].)(?:p|pw|rp|-passwd|-pwd|-token|-api-?key|-auth-token|"
            r"-access-token|-secret|sv_setsteamaccount|"
            r"-(?:src-|dest-)?creds[ \t=]+[^\s:\"']+:)"
            r"(?:[ \t]+|=|(?<=:))[\"']?(?P<v>[^\s\"']{8,512})",
            re.I | re.A,
        ),
        (
            "-p",
            "/rp",
            "creds",
            "--token",
            "--api",
            "--auth-token",
            "--access-token",
            "--secret",
            "steamaccount",
        ),
        group="v",
        validate=lambda m: _flag_value(m.group("v")),
    ),
    _Rule(
        "firebase-key",
        _lazy(r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
        (":APA91b",),
    ),
    _Rule("google-oauth-token", _lazy(r"(?<![A-Za-z0-9])1//0[A-Za-z0-9_-]{40,}"), ("1//0",)),
    _Rule(
        "braintree-token",
        _lazy(r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}"),
        ("access_token$",),
    ),
    _Rule("asana-token", _lazy(r"(?<![0-9/])[0-9]/[0-9]{16}/[0-9]{16}:[a-f0-9]{32}"), ("/",)),
    _Rule(
        "secret-variable",
        # An environment or config variable named for a secret (`SECRET_KEY_BASE=`, `DD_APP_KEY=`,
        # `APP_KEY=base64:…`, `GH_PAT=`), whatever its value's characters, dots included.
        _lazy(
            r"(?<![A-Za-z0-9_])(?P<name>(?:[A-Z][A-Z0-9]*_)*"
            r"(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PASS|PWD|PAT|PIN|AUTH|SIG|SIGNATURE|"
            r"CREDENTIALS?)"
            r"(?:_(?:BASE|VALUE|B64|BASE64|HEX|RAW|[0-9]{1,2}))?)"
            r"[\"']?[ \t]*(?::=|=|:)[ \t]*(?P<q>[\"'`]?)(?P<v>[^\s\"'`,;]{6,512})"
        ),
        ("KEY", "TOKEN", "SECRET", "PASS", "PWD", "PAT", "PIN", "AUTH", "SIG", "CREDENTIAL"),
        group="v",
        validate=lambda m: _secret_variable_ok(m),
    ),
    # Passwords in the shapes of config files, commands and code (the fourth tuning corpus).
    _Rule(
        "password",
        # `requirepass U3_g…`, `admin_password = …`, `psk="…"`, `storePassword '…'`: a config line.
        _lazy(
            r"(?mi)^[ \t]*[\w.-]{0,40}?(?:password|passwd|requirepass|masterauth|psk|storepass|keypass)"
            r"[ \t]*(?:=|:|[ \t])[ \t]*[\"']?(?P<v>[^\s\"']{6,128})"
        ),
        (
            "password",
            "Password",
            "PASSWORD",
            "passwd",
            "requirepass",
            "masterauth",
            "psk",
            "PSK",
            "storepass",
            "keypass",
        ),
        group="v",
        validate=lambda m: not _is_placeholder(m.group("v")) and not _in_code(m.group("v")),
    ),
    _Rule(
        "password",
        # A database client given its password as an argument: `new PDO(dsn, 'user', 'password')`.
        _lazy(r"new PDO\([^,)]+,[ \t]*['\"][^'\"]*['\"][ \t]*,[ \t]*['\"](?P<v>[^'\"]{4,128})['\"]"),
        ("new PDO(",),
        group="v",
    ),
    _Rule(
        "url-password",
        # Oracle's thin URL (`jdbc:oracle:thin:scott/tiger@//host:1521/db`) and a .pgpass line.
        _lazy(r"jdbc:oracle:thin:[^/\s@]+/(?P<v>[^@\s]{4,128})@"),
        ("jdbc:oracle:thin:",),
        group="v",
    ),
    _Rule(
        "password",
        _lazy(r"(?m)^[\w.*-]+:(?:[0-9]+|\*):[\w*-]+:[\w*.-]+:(?P<v>\S{4,128})$"),
        (":5432:", ":*:", "*:*:"),
        group="v",
        validate=lambda m: not _is_placeholder(m.group("v")),
    ),
    _Rule(
        "api-key",
        # A secret in a URL's query (`?key=…`, `&access_token=…`, `X-Amz-Signature=…`).
        _lazy(
            r"[?&](?:key|api[_-]?key|apikey|token|access[_-]?token|auth|secret|client[_-]?secret|signature|"
            r"x-amz-signature|x-goog-signature|private[_-]?token|appid|app[_-]?key)=(?P<v>[^&\s#\"'<>]{12,})",
            re.I,
        ),
        ("key=", "token=", "auth=", "secret=", "ignature=", "KEY=", "TOKEN=", "Key=", "appid="),
        group="v",
        validate=lambda m: (
            not _is_placeholder(m.group("v"))
            and not m.group("v").startswith("$")
            and (len(m.group("v")) >= 16 or _has_digit_and_letter(m.group("v")) or _mixed_case(m))
        ),
    ),
    # A client made with a key and its secret: `StreamChat.getInstance('f8z3…', 'e7c89nyk…')`.
    _Rule(
        "api-key",
        _lazy(
            r"\w\([ \t]*(?P<q>['\"])[A-Za-z0-9_-]{8,40}(?P=q)[ \t]*,[ \t]*"
            r"(?P=q)(?P<v>[A-Za-z0-9_-]{32,128})(?P=q)"
        ),
        ("', '", '", "', "','", '","'),
        group="v",
        validate=lambda m: _random_looking(m.group("v")),
    ),
    # Tokens with characters a run of token characters does not hold (`*:`, `/`, `|`).
    _Rule(
        "unleash-token",
        _lazy(r"\*:(?:production|development|default|staging)\.[0-9a-f]{64}" + _RB),
        ("*:",),
    ),
    _Rule(
        "configcat-key",
        _lazy(r"configcat-sdk-1/[A-Za-z0-9_-]{22}/[A-Za-z0-9_-]{22}" + _RB),
        ("configcat-sdk-1/",),
    ),
    _Rule("roblox-cookie", _lazy(r"_\|WARNING:-DO-NOT-SHARE-THIS\.[^\s'\"]{20,}"), ("_|WARNING:",)),
    _Rule(
        "webhook",
        _lazy(r"(?:open\.feishu\.cn|open\.larksuite\.com)/open-apis/bot/v2/hook/(?P<v>[0-9a-f-]{30,})"),
        ("/open-apis/bot/v2/hook/",),
        group="v",
    ),
    _Rule(
        "api-key",
        _lazy(r"alchemy(?:api)?\.(?:com|io)/v2/(?P<v>[A-Za-z0-9_-]{24,})"),
        ("alchemy",),
        group="v",
    ),
    _Rule(
        "bitcoin-private-key",
        # A WIF private key: base58, 51 or 52 characters, from 5, K or L.
        _lazy(r"(?<![1-9A-HJ-NP-Za-km-z])[5KL][1-9A-HJ-NP-Za-km-z]{50,51}(?![1-9A-HJ-NP-Za-km-z])"),
        ("WIF", "wif", "private key", "privkey", "electrum", "wallet"),
        validate=lambda m: _has_digit_and_letter(m.group(0)) and _mixed_case(m),
    ),
    _Rule(
        "url-password",
        # (`#` and `?` inside the password too: before the host, they start no fragment or query)
        # (a host may be a template's: `@$(DB_HOST):5432` in a Makefile, `@${HOST}`, `@{{ host }}`)
        _lazy(r"://(?P<user>[^\s:/@?#\"'<>\[\]]*):(?P<v>[^\s/@\"'<>]+)@(?=[A-Za-z0-9\[]|\$[({]|\{\{)"),
        ("://",),
        group="v",
        # `host:8080?q=a@b` is a port and a query, not a user and a password
        validate=lambda m: _url_password_ok(m) and not _PORT_THEN_QUERY.match(m.group("v")),
    ),
    *(
        _Rule(
            kind,
            _lazy(pattern, re.I | re.A),
            (needle,) if isinstance(needle, str) else needle,
            group="v",
            validate=lambda m: not _is_placeholder(m.group("v")),
        )
        for kind, needle, pattern in _SURROUNDED
    ),
)

# Header and key names in any case: needles are found in the lower-cased text, the regex matched there.
# The words that end a secret's name, each with what follows it in an assignment: a folded rule is
# tried where its needle is, and the bare words ("sk", "pass", "root") sit inside countless others.
_SECRET_NAME_NEEDLES = tuple(
    word + sep
    for word in (
        "key", "hash", "salt", "secret", "token", "sk", "skey", "seed", "auth", "cred", "credentials", "sig",
        "keystring",
        "nsec", "mnemonic", "passphrase", "pass", "pwd", "encrypt", "admin", "root",
    )
    for sep in ("=", " =", ":", '"', "'")
)  # fmt: skip
_FOLDED_RULES: tuple[_Rule, ...] = (
    # A word near a value (matched where its word is): a password in the person's language, a code
    # said as a number, an identity number named as such.
    _Rule(
        "password",
        _password_near(_PASSWORD_WORDS_ASCII),
        _near_needles(_PASSWORD_WORDS_ASCII),
        group="v",
        validate=_password_near_ok,
    ),
    _Rule(
        "pin",
        _code_pattern(_CODE_WORDS_ASCII),
        _near_needles(_CODE_WORDS_ASCII),
        group="v",
        validate=_code_ok,
    ),
    _Rule(
        "national-id",
        _id_pattern(_ID_WORDS_ASCII),
        _near_needles(_ID_WORDS_ASCII),
        group="v",
        validate=_id_ok,
    ),
    _Rule(
        "private-key",
        # A key as an array of bytes: 32 bytes and more (a Solana keypair file), or 8 and more named
        # for a key (`network_key: [244, 206, …]`).
        _lazy(r"\[[ \t]*(?:[0-9]{1,3}[ \t]*,[ \t]*){7,}[0-9]{1,3}[ \t]*\]"),
        ("[",),
        validate=lambda m: _byte_array_key(m),
    ),
    _Rule(
        "api-key",
        # A random-looking literal in any argument of a call (`recurly.NewClient("9906…")`,
        # `EventApi("https://…", "7be0…")`, `create_default_logger("BBBwX93…")`): a key in code. Matched
        # where an opening quote follows a parenthesis or a comma (a folded rule).
        _lazy(
            r"[(,][ \t]*(?:\r?\n[ \t]*)?b?(?P<q>[\"'])(?P<v>[A-Za-z0-9_+/=-]{20,128}|"
            r"(?=[^'\"]*[&!#%*@])[A-Za-z0-9_+/=&!#%*@-]{16,128})(?P=q)[ \t]*[,)]"
        ),
        # An argument on a line of its own follows `(` or `,` and a line break; `b"…"` is bytes.
        ('("', "('", ', "', ", '", ',"', ",'", "(\n", ",\n", '(b"', "(b'"),
        group="v",
        validate=lambda m: _call_literal_ok(m.group("v")),
    ),
    _Rule(
        "api-key",
        # The same handed by keyword (`Configuration(username="cca0…")`,
        # `SpeechConfig(subscription="1164…")`).
        _lazy(r"=[ \t]*(?P<q>[\"'])(?P<v>[A-Za-z0-9_+/=-]{24,128})(?P=q)[ \t]*[,)]"),
        ('="', "='", '= "', "= '"),
        group="v",
        validate=lambda m: _call_literal_ok(m.group("v")),
    ),
    _Rule(
        "secret-variable",
        # A value named for a secret in lower or any case, in code or config (`api_hash = "…"`,
        # `salt = "…"`, `key=4vg2…` in an INI file): only a random-looking value, never a word or a name.
        _lazy(
            # Matched where its word is (a folded rule): the word ends the name.
            r"(?i)(?P<name>(?:key|hash|salt|secret|token|sk|skey|seed|auth|cred|credentials|sig|nsec|"
            r"mnemonic|keystring|"
            r"passphrase|pass|pwd|encrypt|admin|root)(?:_?[0-9])?)[\"']?\]?[ \t]*(?::=|=|:)[ \t]*"
            r"(?P<q>[\"'`]?)(?P<v>[^\s\"'`,;]{12,256})"
        ),
        _SECRET_NAME_NEEDLES,
        group="v",
        validate=lambda m: (
            _random_looking(m.group("v"))
            and not _is_placeholder(m.group("v"))
            # a quoted value is a literal; an unquoted one is not a call, a member or a subscript
            and (bool(m.group("q")) or not re.search(r"[()\[\]]|\.[a-z_]", m.group("v")))
        ),
    ),
    _Rule(
        "aws-secret-key",
        _lazy(
            r"(?:(?<=secret)|(?<=secret[_-]))access[_-]?key\\?[\"']?[ \t]*(?:=>|=|:)[ \t]*\\?[\"']?"
            r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
            re.I | re.A,
        ),
        ("access",),
        group="v",
    ),
    _Rule(
        "authorization-header",
        _lazy(
            r"authorization\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
            r"(?:(?P<scheme>" + _AUTH_SCHEMES.pattern + r")[ \t]+)?(?P<v>[^\s\"'`,;\\]+)",
            re.I | re.A,
        ),
        ("authorization",),
        group="v",
        validate=_authorization_ok,
    ),
    _Rule(
        "api-header",
        _lazy(
            r"x-(?:auth-key|jfrog-art-api|api-token|auth-token|access-token|secret)"
            r"\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
            r"(?P<v>[A-Za-z0-9_+/=.-]{16,})",
            re.I | re.A,
        ),
        ("x-",),
        group="v",
    ),
    *(
        _Rule(
            "command-password",
            _lazy(pattern, re.I | re.A),
            (needle,),
            group="v",
            validate=lambda m: not _is_placeholder(m.group("v")),
        )
        for needle, pattern in (
            ("sqlcmd", r"sqlcmd\b[^\n|;&]*?[ \t]-P[ \t]*[\"']?(?P<v>[^\s\"']+)"),
            (
                "ldap",
                r"ldap(?:search|modify|add|delete|passwd)\b[^\n|;&]*?[ \t]-w[ \t]*[\"']?(?P<v>[^\s\"']+)",
            ),
            ("openssl", r"openssl\b[^\n|;&]*?-pass(?:out|in)[ \t]+[\"']?pass:(?P<v>[^\s\"']+)"),
            ("wandb", r"wandb[ \t]+login[ \t]+(?:--relogin[ \t]+)?(?P<v>[A-Za-z0-9]{32,})"),
            ("add-authtoken", r"add-authtoken[ \t]+(?P<v>[A-Za-z0-9_]{30,})"),
            ("--authkey", r"--authkey[= \t]+(?P<v>\S{16,})"),
        )
    ),
    _Rule(
        "pin",
        _lazy(r"pin" + _lb(3, "A-Za-z") + r"(?:[ \t]+code)?[ \t]*:?[ \t]+(?P<v>[0-9]{4,8})(?![0-9])", re.I),
        ("pin",),
        group="v",
    ),
    _Rule(
        "recovery-key",
        _lazy(
            r"recovery"
            + _lb(8, "A-Za-z")
            + r"[^\n]{0,40}?(?P<v>(?<![0-9])(?:[0-9]{6}-){7}[0-9]{6}(?![0-9]))",
            re.I,
        ),
        ("recovery",),
        group="v",
    ),
    _Rule(
        "recovery-key",
        _lazy(
            r"(?:recovery|backup) codes?[^\n]{0,60}?\b(?:are|is|:)[ \t]+"
            r"(?P<v>[a-z0-9]{4,6}[- ]?[a-z0-9]{3,6}(?:[ ,]+[a-z0-9]{4,6}[- ]?[a-z0-9]{3,6})*)",
            re.I,
        ),
        ("recovery code", "backup code"),
        group="v",
        validate=lambda m: any(c.isdigit() for c in m.group("v")),
    ),
    _Rule(
        "one-time-code",
        _lazy(
            r"(?:authenticator|2fa|totp|otp|verification code|backup code)[^\n]{0,40}?(?<![0-9])"
            r"(?P<v>[0-9]{3,4}[ -]?[0-9]{3,4})(?![0-9])",
            re.I,
        ),
        ("authenticator", "2fa", "otp", "verification code", "backup code"),
        group="v",
    ),
    _Rule(
        "one-time-code",
        # A sign-in code of letters as Steam Guard and Slack send them ("Steam Guard kod: EIU0R", "the
        # confirmation code MRB-OFT"): capitals with a digit among them, or two groups of three.
        _lazy(
            r"(?:steam guard|guard code|confirmation code|verification code|login code|sign-in code|"
            r"one-time code|2fa code)(?:[ \t]+(?:code|kod|kód|código|codice|kode))?[ \t]*"
            r"(?:[:=—]|[ \t](?:is|was|es|ist|est|je|jest|är)(?![^\W\d_]))?[ \t]*(?<=[\s:=—])"
            r"(?P<v>(?-i:(?=[A-Z0-9]{0,7}[0-9])[A-Z0-9]{5,8}|[A-Z0-9]{3}-[A-Z0-9]{3}))(?![\w-])",
            re.I,
        ),
        (
            "steam guard",
            "guard code",
            "confirmation code",
            "verification code",
            "login code",
            "sign-in code",
            "one-time code",
            "2fa code",
        ),
        group="v",
        validate=lambda m: not _in_marker(m),
    ),
    _Rule(
        "password",
        # "passphrase for the backup drive: ember quartz willow 1987 sunrise": the words are the secret.
        _lazy(
            r"passphrase"
            + _lb(10, "A-Za-z")
            + r"[^:\n]{0,40}:[ \t]+(?P<v>(?:[A-Za-z0-9]+ ){3,7}[A-Za-z0-9]+)",
            re.I,
        ),
        ("passphrase",),
        group="v",
        validate=lambda m: any(c.isdigit() for c in m.group("v")),
    ),
    _Rule(
        "password",
        # A value announced as verbatim, punctuation and all ("the passphrase … it's exactly: juniper
        # pumpkin, crystal! (comma after …)"): everything up to the remark after it or the line's end.
        _lazy(
            # (matched where its word is, so a look-behind may open it)
            r"(?<![A-Za-z])pass(?:phrase|word)(?![A-Za-z])"
            r"[^\n]{0,100}?[ \t](?:exactly|verbatim|literally|precisely)[ \t]*:[ \t]*[\"'`“]?"
            r"(?P<v>[^\s\"'`“”(][^\n\"'`“”(]{2,62}[^\s\"'`“”(])[\"'`”]?(?=[ \t]+\(|[ \t]*(?:\r?\n|\Z))",
            re.I,
        ),
        ("passphrase", "password"),
        group="v",
        validate=lambda m: _verbatim_ok(m),
    ),
    _Rule(
        "password",
        # A passphrase of words joined by dashes right after its name, in any language's sentence
        # ("mit der Wiederherstellungs-Passphrase spruce-mocha-tango-hickory eingerichtet").
        _lazy(
            r"(?<![A-Za-z])(?:passphrase|password|passwort|kennwort|passwd)"
            r"[ \t]+[\"'`„“«]?(?P<v>[a-z]{3,12}(?:-[a-z]{3,12}){3,7})(?![\w-])",
            re.I,
        ),
        ("passphrase ", "password ", "passwort ", "kennwort ", "passwd "),
        group="v",
        validate=lambda m: _words_of_a_passphrase(m.group("v").split("-")),
    ),
    _Rule(
        "password",
        # A privileged account's password under the account's name: `admin = Couchufov57Q8n` in
        # CouchDB's [admins], `admin: AmqE1Jdhbk0L6, admin` in a Jetty realm file, "printer web
        # admin: estua30@" in a note.
        _lazy(
            r"(?:administrator|admin|root|superuser)[ \t]*(?P<sep>[:=])[ \t]*(?P<v>[^\s\"'`,;]{8,64})"
            r"(?![^\s,;])",
            re.I,
        ),
        tuple(
            word + sep
            for word in ("admin", "administrator", "root", "superuser")
            for sep in (":", " :", "=", " =")
        ),
        group="v",
        validate=lambda m: _account_password_ok(m),
    ),
    _Rule(
        "password",
        # `admin / Zx7!hollow-Pine`: a user name and its password, the way people write them down.
        _lazy(r"(?:admin|root|user)[ \t]*/[ \t]*(?P<v>[^\s/]{8,64})", re.I),
        ("admin", "root", "user"),
        group="v",
        validate=lambda m: _has_digit_and_letter(m.group("v")) and any(not c.isalnum() for c in m.group("v")),
    ),
    _Rule(
        "netrc-password",
        _lazy(r"machine[ \t]+\S+[ \t\r\n]+login[ \t]+\S+[ \t\r\n]+password[ \t]+(?P<v>\S+)", re.I | re.A),
        ("machine",),
        group="v",
    ),
    _Rule(
        "docker-auth",
        _lazy(r"\"auth\"[ \t]*:[ \t]*\"(?P<v>[A-Za-z0-9+/]{12,}={0,2})\"", re.I | re.A),
        ('"auth"',),
        group="v",
    ),
    _Rule(
        "command-password",
        # `mysql -u root -pS3cret` (the password glued to -p), `mysqldump`, `mariadb`.
        _lazy(
            r"(?:mysql|mysqldump|mariadb|mysqladmin)\b[^\n|;&]*?[ \t\"',]-p(?P<v>[^\s\"'-][^\s\"']{2,})",
            re.I | re.A,
        ),
        ("mysql", "mariadb"),
        group="v",
    ),
    _Rule(
        "command-password",
        _lazy(r"curl\b[^\n|;&]*?[ \t](?:-u|--user)[ \t]+[\"']?[^\s:\"']+:(?P<v>[^\s\"']+)", re.I | re.A),
        ("curl",),
        group="v",
        validate=lambda m: not _is_placeholder(m.group("v")),
    ),
    _Rule(
        "command-password",
        _lazy(r"sshpass[ \t]+-p[ \t]*[\"']?(?P<v>[^\s\"']+)", re.I | re.A),
        ("sshpass",),
        group="v",
    ),
    _Rule(
        "command-password",
        _lazy(r"docker[ \t]+login\b[^\n|;&]*?[ \t]-p[ \t]+[\"']?(?P<v>[^\s\"']+)", re.I | re.A),
        ("docker",),
        group="v",
    ),
    *(
        _Rule(
            "password" if word not in ("pin", "pin code", "passcode") else "pin",
            _lazy(
                re.escape(word) + _lb(len(word), "A-Za-z") + r"(?:[ \t]+(?:for|of|to|on)[ \t]+[^\s]{1,40})?"
                r"[ \t]+(?:(?:is |was )?set to|is|was|are)[ \t]*:?[ \t]+"
                r"[\"'`]?(?P<v>[^\s\"'`]*[^\s\"'`.,;:!?)])",
                re.I,
            ),
            (word,),
            group="v",
            validate=_stated_secret_ok,
        )
        for word in (
            "password",
            "passphrase",
            "passcode",
            "pin code",
            "pin",
            "api key",
            "secret key",
            "auth token",
            "access token",
            "recovery codes",
            "recovery code",
            "pw",
            "vncpasswd",
        )
    ),
    _Rule(
        "bearer-token",
        _lazy(r"[Bb]earer[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)(?![A-Za-z0-9._~+/=-])"),
        ("bearer",),
        group="v",
        validate=_bearer_ok,
    ),
    # A password stated in the person's own language ("das Passwort … ist X", "la contraseña … es X").
    *(
        _Rule("password", _stated_in_words(re.escape(word)), (word,), group="v", validate=_stated_secret_ok)
        for word in ("passwort", "kennwort", "contrasena", "mot de passe", "senha", "wachtwoord", "haslo")
    ),
    _Rule(
        "password",
        # A diceware passphrase stated in prose: words, none of them the small words of a sentence.
        _lazy(
            r"passphrase[^\n]{0,40}?[ \t](?:is|was|:)[ \t]+[\"'`]?(?P<v>[a-z]+(?: [a-z]+){3,9})"
            r"(?=[\"'`,.;)\n]|$| -)",
            re.I,
        ),
        ("passphrase",),
        group="v",
        validate=lambda m: not (set(m.group("v").lower().split()) & _SENTENCE_WORDS),
    ),
    # Found where their first word is (so matched at it, not tried at every position of the text).
    _Rule(
        "command-password",
        # `jarsigner -storepass …`, `signtool /p …`, `xfreerdp /p:'…'`.
        _lazy(
            r"(?:-(?:storepass|keypass|srcstorepass|deststorepass)|/p(?=[: \t]))[ \t:=]*[\"']?"
            r"(?P<v>[^\s\"']{4,128})",
            re.I,
        ),
        ("-storepass", "-keypass", "-srcstorepass", "-deststorepass", "/p:", "/p "),
        group="v",
        validate=lambda m: (
            not _is_placeholder(m.group("v"))
            and not m.group("v").startswith(("/", "-"))
            and (m.start() == 0 or m.string[m.start() - 1].isspace())
        ),
    ),
    _Rule(
        "password",
        # SQL (`IDENTIFIED BY '…'`, `WITH PASSWORD '…'`) and PowerShell (`ConvertTo-SecureString "…"`).
        _lazy(
            r"(?:identified by|with (?:encrypted )?password|password|convertto-securestring)[ \t]+"
            r"[\"'](?P<v>[^\"'\n]{4,128})[\"']",
            re.I,
        ),
        (
            "identified by",
            "with password",
            "with encrypted password",
            "password '",
            'password "',
            "convertto-securestring",
        ),
        group="v",
        validate=lambda m: not _is_placeholder(m.group("v")),
    ),
    _Rule(
        "national-id",
        # A person's identity or tax number named as such (UK NI, Canada SIN, Aadhaar, PAN, CPF, Steuer-ID,
        # passport): the words, then the number.
        _lazy(
            r"(?:ni number|national insurance(?: number)?|\bsin\b|aadhaar|"
            r"\bpan\b(?: card)?(?: number)?|\bcpf\b|\bdni\b|personnummer|"
            r"steuer-?id|steueridentifikationsnummer|tax id|passport(?: number| no\.?)?|\bcurp\b|"
            r"codice fiscale|num[ée]ro de s[ée]cu(?:rit[ée] sociale)?|\bnir\b|\bnif\b|contribuinte|\bbsn\b|"
            r"\bpesel\b|kimlik|マイナンバー|my number|주민등록번호|снилс)"
            # the number in capitals and digits whatever the case of the words: "DNI es 73057170Q y"
            r"[^\n0-9]{0,60}?(?P<v>(?-i:(?=[A-Z0-9 .-]*[0-9])[A-Z0-9][A-Z0-9 .-]{6,22}[A-Z0-9]))"
            r"(?![A-Za-z0-9])",
            re.I,
        ),
        # Each a word of its own: `sin` and `pan` sit inside thousands of ordinary words.
        (
            "ni number",
            "national insurance",
            "sin ",
            "sin:",
            "aadhaar",
            "pan ",
            "pan:",
            "cpf",
            "steuer",
            "tax id",
            "passport",
            "dni",
            "personnummer",
            "curp",
            "codice fiscale",
            "de sécu",
            "de secu",
            "nir ",
            "nir:",
            "nir,",
            "nif ",
            "nif:",
            "nif,",
            "contribuinte",
            "bsn",
            "pesel",
            "kimlik",
            "マイナンバー",
            "my number",
            "주민등록번호",
            "снилс",
        ),
        group="v",
        validate=lambda m: _national_id_ok(m),
    ),
    _Rule(
        "pin",
        # A card's CVV, a SIM's or a token's PUK, a bank's TAN, a one-time code: the word, then digits.
        _lazy(r"(?i)\b(?:puk|cvv2?|cvc|push-?tan|tan|otp)\b(?!\()[^\n0-9]{0,30}?(?P<v>[0-9]{3,8})(?![0-9])"),
        ("puk", "cvv", "cvc", "pushtan", "push-tan", "tan", "otp"),
        group="v",
    ),
    _Rule(
        "pin",
        # A code to a door, an alarm or a safe, a voicemail or a guard prompt.
        _lazy(
            r"(?:door|gate|alarm(?: panel)?|panel|safe|garage|lock|guard|access|entry|voicemail|keypad)"
            r"[ ,\t]+(?:code|combination|pin)[^\n]{0,12}?(?:\bis\b|[:=]|[ \t])[ \t]*"
            r"(?P<v>[A-Z0-9][A-Z0-9#*-]{3,11})(?![A-Za-z0-9])",
            re.I,
        ),
        # The whole phrase: `access`, `lock` and `entry` alone are everywhere.
        (
            "door code",
            "door pin",
            "gate code",
            "alarm code",
            "alarm panel",
            "panel code",
            "safe code",
            "safe combination",
            "safe, combination",
            "garage code",
            "lock code",
            "guard code",
            "access code",
            "entry code",
            "voicemail",
            "keypad",
        ),
        group="v",
        validate=lambda m: any(c.isdigit() for c in m.group("v")),
    ),
    _Rule(
        "password",
        # A WordPress application password: six groups of four.
        _lazy(
            r"application password[^\n]{0,40}?(?P<v>[A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){5})(?![A-Za-z0-9])",
            re.I,
        ),
        ("application password",),
        group="v",
    ),
    _Rule(
        "bank-account",
        _lazy(
            r"(?:routing|account|acct|aba)(?:[ /]+(?:and )?(?:account|number|no\.?|#))*[ \t:]*"
            r"(?P<v>[0-9]{9}(?:[ \t]*/[ \t]*[0-9]{6,17})?)(?![0-9])",
            re.I,
        ),
        ("routing", "aba"),
        group="v",
    ),
    _Rule(
        "password",
        # `pw: Xk9!…`, `pwd = …`: the short names people type.
        _lazy(r"pw" + _lb(2, "A-Za-z") + r"d?[ \t]*[:=][ \t]*[\"'`]?(?P<v>[^\s\"'`,;)]{6,128})", re.I),
        ("pw",),
        group="v",
        validate=lambda m: _stated_secret_ok(m) and not _in_code(m.group("v")),
    ),
    _Rule(
        "password",
        # A Google app password: four groups of four letters.
        _lazy(r"app[ -]?passw(?:or)?d[^\n]{0,20}?[:= ][ \t]*[\"'`]?(?P<v>[a-z]{4}(?: [a-z]{4}){3})\b", re.I),
        ("app password", "app-password", "apppassword"),
        group="v",
    ),
    _Rule(
        "password",
        # The same given to any key for a password (`smtpPass = pnoz ymzg agvy ebdg` in a .gitconfig,
        # `MAIL_PASSWORD="…"`), spaces and all as Google shows it: four words of four letters that no
        # sentence would put there.
        _lazy(r"pass(?:word|wd)?[\"']?[ \t]*[:=][ \t]*[\"'`]?(?P<v>[a-z]{4}(?: [a-z]{4}){3})(?![\w-])", re.I),
        tuple(
            word + sep for word in ("pass", "password", "passwd") for sep in (" =", "=", ":", " :", '"', "'")
        ),
        group="v",
        validate=lambda m: _words_of_a_passphrase(m.group("v").split()),
    ),
    _Rule(
        "one-time-code",
        # The seed under a 2FA QR code: base32, often in groups of four.
        _lazy(
            r"(?:setup|secret|2fa|totp|mfa|otp|authenticator)[ -]?(?:key|seed|secret)[^\n]{0,40}?[\"'`: ]"
            r"(?P<v>[a-z2-7]{4}(?: ?[a-z2-7]{4}){3,15})(?![a-z0-9])",
            re.I,
        ),
        ("setup key", "secret key", "2fa", "totp", "mfa", "otp", "authenticator"),
        group="v",
        validate=lambda m: any(c in "234567" for c in m.group("v")),
    ),
    _Rule(
        "recovery-key",
        # A wallet's seed words (BIP39): twelve to twenty-four words after the name.
        _lazy(
            r"(?:mnemonic|seed[ _-]?phrase|recovery[ _-]?phrase|seed words|(?:12|15|18|21|24) words)"
            r"[^\n]{0,40}?"
            r"(?:[:=]|\bis\b)[ \t\n]*"
            r"[\"'`]?(?P<v>[a-z]+(?: [a-z]+){11,23})",
            re.I,
        ),
        (
            "mnemonic",
            "seed phrase",
            "seed_phrase",
            "seed-phrase",
            "recovery phrase",
            "seed words",
            "12 words",
            "15 words",
            "18 words",
            "21 words",
            "24 words",
        ),
        group="v",
    ),
    _Rule(
        "private-key",
        # A wallet's private key: 64 hex digits after a word for it (a transaction hash has none).
        _lazy(
            r"(?:private[ _-]?key|privkey|accounts|wallet)[^\n]{0,40}?(?<![0-9a-f])(?P<v>(?:0x)?[0-9a-f]{64})"
            r"(?![0-9a-f])",
            re.I,
        ),
        ("private", "privkey", "accounts", "wallet"),
        group="v",
    ),
    _Rule(
        "ssn",
        _lazy(
            r"(?:ssn|social security(?: number)?)(?![a-z])[^\n]{0,20}?(?<![0-9])(?P<v>(?!000|666|9)[0-9]{3}-"
            r"(?!00)[0-9]{2}-(?!0000)[0-9]{4})(?![0-9])",
            re.I,
        ),
        ("ssn", "social security"),
        group="v",
    ),
    _Rule(
        "pin",
        _lazy(r"pin" + _lb(3, "A-Za-z") + r"[ \t]*\([ \t]*(?P<v>[0-9]{4,8})[ \t]*\)", re.I),
        ("pin",),
        group="v",
    ),
    _Rule(
        "session-cookie",
        _lazy(
            r"(?:cookie|-b)[ \t:=]+[\"']?(?:[^\n\"']*?;[ \t]*)?"
            r"[a-z0-9_.-]*(?:session|sid|auth|jwt)[a-z0-9_.-]*=(?P<v>[A-Za-z0-9%._+/=-]{16,})",
            re.I,
        ),
        ("cookie", "-b "),
        group="v",
    ),
    _Rule(
        "webhook",
        _lazy(r"webhook\.office\.com/webhookb2/(?P<v>[^\s\"'<>]{20,})", re.I),
        ("webhook.office.com",),
        group="v",
    ),
    _Rule(
        "api-key",
        _lazy(r"x-honeycomb-team[\"']?[ \t]*[:=][ \t]*[\"']?(?P<v>[A-Za-z0-9_]{20,})", re.I),
        ("x-honeycomb-team",),
        group="v",
    ),
    *(
        _Rule(
            "command-password",
            _lazy(pattern, re.I | re.A),
            (needle,),
            group="v",
            validate=lambda m: not _is_placeholder(m.group("v")),
        )
        for needle, pattern in (
            (
                "htpasswd",
                r"htpasswd\b[^\n|;&]*?[ \t]-[a-z]*b[a-z]*[ \t]+\S+[ \t]+\S+[ \t]+[\"']?(?P<v>[^\s\"']+)",
            ),
            ("redis-cli", r"redis-cli\b[^\n|;&]*?[ \t](?:-a|--pass)[ \t]+[\"']?(?P<v>[^\s\"']+)"),
            ("/pass", r"/pass(?:word)?:(?P<v>[^\s\"'/]+)"),
            ("smbclient", r"smbclient\b[^\n|;&]*?[ \t]-U[ \t]*[\"']?[^\s%\"']+%(?P<v>[^\s\"']+)"),
            ("7z", r"7z[a-z]?\b[^\n|;&]*?[ \t]-p(?P<v>[^\s\"'-][^\s\"']{2,})"),
            ("zip", r"(?:un)?zip\b[^\n|;&]*?[ \t]-P[ \t]*[\"']?(?P<v>[^\s\"']+)"),
        )
    ),
)

# --------------------------------------------------------------------------------------------------------
# Assignments: `password=…`, `"token": "…"`, `--api-key …`.

_KEY = regex_cache.compile(
    # A key right after `-` ends a flag (`--db-password`); only a flag takes its value after a space.
    r"(?:(?<=-)(?P<flag>))?"
    r"(?P<kw>pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|(?<=_)auth)"
    r"(?:[_-]?(?:key|value|secret|token|str|string|plain(?:text)?|raw|b64|base64|hex|[0-9]{1,2}))?"
    r"(?![A-Za-z0-9_-])"
    r"(?P<kq>\\?[\"']?)"
    # (the value may follow a line continuation: PowerShell's backtick, a backslash)
    r"(?P<sep>[ \t]*(?::=|=>|=(?![=~>])|:(?![:/]))[ \t]*(?:[`\\][ \t]*\r?\n[ \t]*)?|(?(flag)[ \t]+|(?!))|>)",
    re.I | re.A,
)
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
# What may precede a key at the start of a line in a config position (shell, Dockerfile, .env).
_CONFIG_PREFIX = regex_cache.compile(
    # `- KEY=value`: an item of a compose file's `environment:` list
    r"(?:-[ \t]+[\"']?)?"
    r"(?:(?:export|set|setx|ENV|ARG|declare(?:[ \t]+-x)?|local|readonly)[ \t]+"
    r"|[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*"  # other variables set for the same command: `A=1 PGPASSWORD=x`
)
_MAX_KEY = 128  # how far to look back for a key's start or its line's start
_MAX_VALUE = 1024  # longest value an assignment may have
# The inside of a string: escapes skipped, stopping at the closing quote or the end of the line.
_QUOTED = {q: regex_cache.compile(rf"(?:[^{q}\\\n]|\\.){{0,{_MAX_VALUE + 1}}}") for q in "\"'`"}
_ESCAPED_QUOTED = {q: regex_cache.compile(rf"(?:[^\\\n]|\\[^{q}\n]){{0,{_MAX_VALUE + 1}}}") for q in "\"'"}
# Unquoted values end at whitespace, quotes, separators and closing brackets, and at an escape sequence
# (`\n`, `\"`) of text that sits inside a JSON string: `"DB_PASSWORD=hunter2x\nAPI_URL=https://…"`.
_UNQUOTED = regex_cache.compile(rf"(?:[^ \t\r\n\"'`,;)\]}}<>\\]|\\(?![nrt\"'\\])){{0,{_MAX_VALUE + 1}}}")
_STOPWORDS = frozenset(
    re.findall(
        r"\S+",
        """
    none null nil true false undefined yes no on off str string bytes int integer bool boolean any object
    number optional required secretstr secretbytes text varchar char void unknown self this cls env
    default bearer basic token password passwd secret pass key value redacted hidden masked omitted empty
    unset set expired invalid valid missing n/a na tbd todo example placeholder dummy fake test
        """,
    )
)
_PLACEHOLDER = regex_cache.compile(
    r"<[^<>]*>|<\|[^|]*\|>|\[[^\[\]]*\]|\{[^{}]*\}|\(\S*\)"  # <token>, <|endoftext|>, [MASK], {x}
    r"|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|%s"  # $VAR, %VAR%, %s
    r"|[*xX.#?•_-]+"  # ****, xxxx
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"  # an environment variable's name (upper case only)
)
_TEMPLATE_MARKS = ("${", "{{", "$(", "%(", "...", "…")  # ${VAR}, {{ x }}, $(cmd), %(name)s, elided
_DOTTED = regex_cache.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*)+")
_ESCAPES = regex_cache.compile(r"\\[nrt]")
_DOTTED_NUMBER = regex_cache.compile(r"[0-9]+(?:\.[0-9]+)+")
_PUNCTUATION = ".,:;!?()\"'`"
_GENERIC_TYPE = regex_cache.compile(r"[A-Za-z_][\w:]*<")  # Option<String>, std::vector<int>
_WORD = regex_cache.compile(r"[A-Za-z_]+")
_DEFAULTED = regex_cache.compile(r"[A-Za-z_][A-Za-z0-9_]*=[^=]")
_CAMEL = regex_cache.compile(r"[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+|[a-z]+_[a-z_]+")  # identifiers in code


def _is_placeholder(v: str) -> bool:
    low = v.lower()
    return (
        low in _STOPWORDS
        or _PLACEHOLDER.fullmatch(v) is not None
        or any(mark in v for mark in _TEMPLATE_MARKS)
        or low.startswith(("your-", "your_", "your "))  # your-api-key
        or low.endswith(("-here", "_here", " here"))  # api-key-here
    )


def _looks_like_code(v: str) -> bool:
    """A call, subscript, attribute chain, path, URL or generic type: something that refers, not a literal."""
    return (
        "(" in v
        or "[" in v
        or "://" in v
        or v[0] in "/~"
        or v.startswith(("./", "../"))
        or (_DOTTED.fullmatch(v) is not None and not _WORDS_AND_DIGITS.search(v))
        or _GENERIC_TYPE.match(v) is not None
    )


# `meadow.WILLOW336`: a dotted value whose part ends in three digits is a password made of words,
# not an attribute chain (`self.password`, `settings.SECRET_KEY`, `process.env.DB_PASSWORD`).
_WORDS_AND_DIGITS = regex_cache.compile(r"(?:^|\.)[A-Za-z]+[0-9]{3,}(?:\.|$)")


_KEYWORD_KINDS = {
    "apikey": "api-key",
    "accesskey": "access-key",
    "privatekey": "private-key",
    "secret": "secret",
    "token": "token",
}


def _keyword_kind(kw: str) -> str:
    k = kw.lower().replace("_", "").replace("-", "")
    return _KEYWORD_KINDS.get(k, "password")  # pass, passwd, password, passphrase, pwd


def _quoted_value(text: str, start: int) -> tuple[int, int, bool] | None:
    """Inside of the quoted string opening at `start` (`"`, `'`, a backtick or an escaped `\\"`): begin, end,
    and whether the closing quote was found on the same line. None if it is too long to be a credential."""
    escaped = text[start] == "\\"
    quote = text[start + 1] if escaped else text[start]
    begin = start + (2 if escaped else 1)
    body = (_ESCAPED_QUOTED if escaped else _QUOTED)[quote].match(text, begin)
    end = begin if body is None else body.end()
    if end - begin > _MAX_VALUE:
        return None
    closed = text.startswith("\\" + quote if escaped else quote, end)
    if not closed:
        while end > begin and text[end - 1] in " \t\r":
            end -= 1
    return begin, end, closed


_CONSTANT = regex_cache.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # EMAIL_HOST_PASSWORD, not Password
_PASSWORD_KEYWORDS = frozenset({"password", "passwd", "pass", "pwd", "passphrase"})


def _quoted_ok(v: str, kw: str, closed: bool, template: bool, constant: bool = False) -> bool:
    if v != v.lstrip():
        return False  # `"token=" + raw`: this quote closes one string literal, the next opens another
    if len(v) < 4 or _is_placeholder(v) or v.lower() == kw.lower() or _DOTTED_NUMBER.fullmatch(v):
        return False  # `SERVER_AUTH = '1.3.6.1.5.5.7.3.1'`: an OID, a version, an address
    if template and "{" in v:
        return False
    if not closed and (any(c.isspace() for c in v) or _looks_like_code(v)):
        # No closing quote: it ended a string (`prompt='Password: ', stream=None`). A lone token is kept
        # as a value: a line cut short in the middle of a secret.
        return False
    # A phrase of plain words is prose ("Enter your password", 'The "pass" statement\n'), not a credential;
    # passphrases are phrases.
    # A constant's (`EMAIL_HOST_PASSWORD = "eclipse orange harbor"`) is its value, whatever its words.
    words = _ESCAPES.sub(" ", v).split()
    phrase_ok = kw.lower() == "passphrase" or (
        constant and kw.lower() in _PASSWORD_KEYWORDS and len(words) <= 6
    )
    return not (len(words) > 1 and not phrase_ok and all(w.strip(_PUNCTUATION).isalpha() for w in words))


def _assignment(text: str, m: re.Match[str]) -> tuple[int, int, str] | None:
    """The span of the value assigned to the secret-named key matched by `m`, if it looks like a literal."""
    key = _key_context(text, m)
    if key is None:
        return None
    ks, sep, is_flag = key
    kw = m.group("kw")
    n = len(text)
    v0 = m.end()
    if v0 >= n:
        return None
    c = text[v0]
    template = c == "`"
    if c in "rRbBuUfF" and text.startswith(("'", '"'), v0 + 1):
        template = c in "fF"
        v0 += 1
        c = text[v0]
    if sep == ">":
        end = text.find("<", v0, v0 + _MAX_VALUE)
        if end == -1 or "\n" in text[v0:end] or not _quoted_ok(text[v0:end], kw, True, False):
            return None
        return v0, end, _keyword_kind(kw)
    if c in "\"'`" or (c == "\\" and text.startswith(("'", '"'), v0 + 1)):
        quoted = _quoted_value(text, v0)
        constant = _CONSTANT.fullmatch(text[ks : m.end("kw")]) is not None
        if quoted is None or not _quoted_ok(text[quoted[0] : quoted[1]], kw, quoted[2], template, constant):
            return None
        return quoted[0], quoted[1], _keyword_kind(kw)
    if template:
        return None  # f'…' was handled above; an `f` here starts a bare word
    return _unquoted_assignment(text, m, ks, sep, is_flag, v0)


def _key_context(text: str, m: re.Match[str]) -> tuple[int, str, bool] | None:
    """(where the key starts, the separator, whether it is a command-line flag), or None when the
    match is no assignment of a secret (a word alone, a URL's user, `password hunter2` in prose)."""
    kw = m.group("kw")
    start = m.start()
    prev = text[start - 1] if start else ""
    if kw.lower() in ("pass", "pwd") and not (
        (prev != "" and prev in "_-") or (prev.islower() and kw[0].isupper())
    ):
        # Short words count only as the end of a compound: DB_PASS, smtp-pass, dbPass, --pass, DB_PWD.
        # Alone they are a test verdict ("PASS: tests/x.py"), a statement, a directory (PWD, OLDPWD), bypass.
        return None
    ks = start
    while ks > 0 and start - ks < _MAX_KEY and text[ks - 1] in _KEY_CHARS:
        ks -= 1
    if text.endswith("://", 0, ks):
        return None  # the user of a URL (`https://x-access-token:…@host`): the url-password rule's
    sep = m.group("sep").strip().rstrip("`\\").strip()
    is_flag = text.startswith("-", ks)
    if sep == "" and not is_flag:
        return None  # "the password hunter2": only a command-line flag takes its value after a space
    if sep == ">" and not (ks > 0 and text[ks - 1] == "<"):
        return None
    return ks, sep, is_flag


def _unquoted_assignment(
    text: str, m: re.Match[str], ks: int, sep: str, is_flag: bool, v0: int
) -> tuple[int, int, str] | None:
    """The span of a bare value (`TOKEN=abc123`, `--password hunter2`), if it reads as a credential."""
    kw = m.group("kw")
    run = _UNQUOTED.match(text, v0)
    j = v0 if run is None else run.end()
    if j - v0 > _MAX_VALUE:
        return None  # longer than any credential typed into an assignment
    query = ks > 0 and text[ks - 1] in "?&"
    if query and "&" in text[v0:j]:
        j = text.index("&", v0)  # the next query parameter
    while j > v0 and text[j - 1] in ".:":
        j -= 1  # sentence punctuation after the value
    v = text[v0:j]
    if len(v) < 4 or v[0] in "([{<$%&*!@#|>~-=\\" or _is_placeholder(v) or _looks_like_code(v):
        return None
    if _DEFAULTED.match(v):
        return None  # `startToken:Token=None`: a parameter's type and default
    if v.lower() in (kw.lower(), text[ks : m.end("kw")].lower().lstrip("-")):
        return None
    kind = _keyword_kind(kw)
    if not (v.isalpha() or v.isdigit() or _WORD.fullmatch(v)):
        return v0, j, kind  # hunter2, p@ssw0rd, django-insecure-…: mixes characters like a credential
    # A bare word: a value in config, a variable in code.
    if kind != "password" and len(v) < 16:
        return None  # tokens and keys are never short dictionary words
    if not (is_flag or query or _config_position(text, ks, sep, m.group("sep"))):
        return None
    eol = text.find("\n", j, j + _MAX_VALUE)
    rest = text[j : j + _MAX_VALUE if eol == -1 else eol].strip()
    if is_flag and sep == "":
        # `--password hunter` ends the command or precedes another flag; `use --token when needed` is prose.
        if rest and rest[0] not in "-\\`\"'|;&>":
            return None
    elif sep == ":":
        if rest and not rest.startswith("#"):
            return None  # "Token: expires hourly" is prose
        if _CAMEL.fullmatch(v):
            return None  # `token: TokenModel`, `password: hashedPassword`
    return v0, j, kind


def _config_position(text: str, ks: int, sep: str, raw_sep: str) -> bool:
    """`KEY=value` at the start of a line (or after `export`, `ENV`, other `A=1` settings), or `key: value`
    at the very start of a line (YAML; a `- key:` bullet is as likely Markdown prose)."""
    if not (sep == ":" or raw_sep == "="):
        return False  # `key = value` with spaces is as likely Python as INI: code wins
    opener = ks - 1 if ks > 0 and text[ks - 1] in "\"'" else ks
    if opener > 0 and text[opener - 1] == "\\":
        opener -= 1
    # Bounded look-back, so a long line with many hits (a JSONL record) stays linear.
    line_start = text.rfind("\n", max(0, opener - _MAX_KEY), opener) + 1
    if line_start == 0 and opener > _MAX_KEY:
        return False  # too far from the start of its line to tell
    prefix = text[line_start:opener].lstrip()
    return prefix == "" if sep == ":" else _CONFIG_PREFIX.fullmatch(prefix) is not None


_KEY_PREFIXES = (
    b"api",
    b"api_",
    b"api-",
    b"access",
    b"access_",
    b"access-",
    b"private",
    b"private_",
    b"private-",
)


def _scan_assignments(text: str, folded: bytes) -> Iterator[tuple[int, int, str]]:
    for needle in (b"pass", b"pwd", b"secret", b"token", b"key", b"_auth"):
        i = folded.find(needle)
        while i != -1:
            starts: Iterable[int] = (i + 1,) if needle == b"_auth" else (i,)  # `_auth=` (.npmrc)
            if needle == b"key":
                # One scan for `key` serves api_key, accessKey, private-key: look back for the first word.
                if not folded.endswith(_KEY_PREFIXES, max(0, i - 8), i):
                    i = folded.find(needle, i + 1)
                    continue
                starts = [i - len(p) for p in _KEY_PREFIXES if folded.endswith(p, 0, i)]
            for start in starts:
                m = _KEY.match(text, start)
                if m is not None:
                    found = _assignment(text, m)
                    if found is not None:
                        yield found
            i = folded.find(needle, i + 1)


# --------------------------------------------------------------------------------------------------------
# Scanning, merging, replacing.


# Bytes of token characters map to `a`, all others to a space: long runs of `a` are where tokens can be.
def _runs_of(ascii_text: bytes, mask: bytes, least: int) -> Iterator[tuple[int, int]]:
    """Where `ascii_text` holds at least `least` characters in a row that `mask` maps to `a`: a
    search for a literal, far cheaper than a pattern tried at every character."""
    masked = ascii_text.translate(mask)
    needle = b"a" * least
    i = masked.find(needle)
    while i != -1:
        end = masked.find(b" ", i + least)
        end = len(masked) if end == -1 else end
        yield i, end
        i = masked.find(needle, end)


def _mask(chars: str) -> bytes:
    return bytes(0x61 if chr(c) in chars else 0x20 for c in range(256))


_RUN_MASK = _mask(string.ascii_letters + string.digits + "_.-")


def _long_runs(text: str, ascii_text: bytes) -> tuple[str, list[int], list[int]]:
    """The runs of token characters at least _MIN_TOKEN long, joined by newlines, and where each came from."""
    pieces: list[str] = []
    origins: list[int] = []
    joined_at: list[int] = []
    pos = 0
    for i, end in _runs_of(ascii_text, _RUN_MASK, _MIN_TOKEN):
        starts = [i]
        if i and ascii_text[i - 1] == 0x5C and ascii_text[i] in b"nrt":
            # `\nghp_…` inside a JSON string, where the `n` ends an escape: the run is searched from the
            # letter after it too (and as it stands, for `\npm_…` in plain text).
            starts.append(i + 1)
        for start in starts:
            pieces.append(text[start:end])
            origins.append(start)
            joined_at.append(pos)
            pos += end - start + 1
    return "\n".join(pieces), origins, joined_at


ALL_KINDS: frozenset[str] = frozenset(
    {r.kind for r in _TOKEN_RULES + _CONTEXT_RULES + _FOLDED_RULES}
    | {
        "password",
        "secret",
        "token",
        "api-key",
        "access-key",
        "private-key",
        "card-number",
        "iban",
        "credential",
    }
)
_MARKER = regex_cache.compile(
    re.escape(REDACTION_MARKER_PREFIX) + "(?:" + "|".join(sorted(ALL_KINDS)) + r")\]"
)
_MARKER_NEEDLE = REDACTION_MARKER_PREFIX.encode()


def _owners(needle_sets: tuple[tuple[bytes, ...], ...]) -> tuple[tuple[bytes, tuple[int, ...]], ...]:
    index: dict[bytes, list[int]] = {}
    for n, needles in enumerate(needle_sets):
        for needle in needles:
            index.setdefault(needle, []).append(n)
    return tuple((needle, tuple(rules)) for needle, rules in index.items())


_WORD_NEAR_VALUE = tuple(
    rule.regex
    for rule in _CONTEXT_RULES + _FOLDED_RULES + _UNICODE_RULES
    if rule.validate in (_password_near_ok, _code_ok, _id_ok)
)
_CONTEXT_NEEDLES = tuple(tuple(n.encode() for n in rule.needles) for rule in _CONTEXT_RULES)
_FOLDED_NEEDLES = tuple(tuple(n.encode() for n in rule.needles) for rule in _FOLDED_RULES)
# Every rule's needles, lower-cased, in one table: each looked for once in the lower-cased text (a
# context rule's own case is then its regex's to check). Indexes past the context rules are folded.
_ALL_OWNERS = _owners(
    tuple(tuple(n.lower() for n in needles) for needles in _CONTEXT_NEEDLES) + _FOLDED_NEEDLES
)
_ALL_SCAN = NeedleScan(
    {needle.decode("ascii", "replace"): tuple(map(str, rules)) for needle, rules in _ALL_OWNERS}
)
# The rules a scan's owners stand for, by index in order, made once per distinct set of owners.
_RULE_INDEXES: dict[frozenset[str], list[int]] = {}


def _rule_indexes(owners: frozenset[str]) -> list[int]:
    indexes = _RULE_INDEXES.get(owners)
    if indexes is None:
        indexes = _RULE_INDEXES[owners] = sorted(int(owner) for owner in owners)
    return indexes


_Candidate = tuple[int, int, str, int]  # start, end, kind, priority (lower is more specific)
_GENERIC = 1000  # priority of assignments: any named provider wins a tie
# Each context rule's priority: after the token rules, in table order; a variable named for a
# secret, or a word near a value, is the least specific rule (a named rule's kind wins a tie).
_CONTEXT_RANKS = tuple(
    _GENERIC + 1
    if rule.kind == "secret-variable" or rule.regex in _WORD_NEAR_VALUE
    else len(_TOKEN_RULES) + n + 1
    for n, rule in enumerate(_CONTEXT_RULES)
)
_FOLDED_GENERIC = tuple(
    rule.kind == "secret-variable" or rule.regex in _WORD_NEAR_VALUE for rule in _FOLDED_RULES
)


def _span(rule: _Rule, m: re.Match[str]) -> tuple[int, int] | None:
    if rule.validate is not None and not rule.validate(m):
        return None
    return m.span(rule.group) if rule.group else m.span()


def _raw_candidates(text: str, ascii_text: bytes) -> Iterator[_Candidate]:
    # Priorities break ties between equal spans: a named provider, then a context rule, then a key name.
    folded = ascii_text.lower()  # ASCII-only case folding, so offsets still line up with the text
    # One scan finds every rule's needles, where they are: the context rules it opens and the places
    # the folded rules are tried.
    hits = [(at, _rule_indexes(owners)) for at, owners in _ALL_SCAN.hits(folded.decode("ascii", "replace"))]
    context = len(_CONTEXT_RULES)
    for n in sorted({n for _, owners in hits for n in owners if n < context}):
        rule, rank = _CONTEXT_RULES[n], _CONTEXT_RANKS[n]
        for m in rule.regex.finditer(text):
            span = _span(rule, m)
            if span is not None:
                yield span[0], span[1], rule.kind, rank
    runs, origins, joined_at = _long_runs(text, ascii_text)
    # Most messages have no run of token characters long enough to be a token: then no token rule
    # is tried at all (a hundred empty searches cost a short message most of its redaction).
    for priority, rule in enumerate(_TOKEN_RULES if runs else ()):
        if not rule.needles or any(needle in runs for needle in rule.needles):
            for m in rule.regex.finditer(runs):
                span = _span(rule, m)
                if span is not None:
                    k = bisect_right(joined_at, span[0]) - 1
                    shift = origins[k] - joined_at[k]
                    yield span[0] + shift, span[1] + shift, rule.kind, priority
    priority = len(_TOKEN_RULES) + len(_CONTEXT_RULES)
    yield from _scan_folded(text, hits, priority)
    priority += len(_FOLDED_RULES)
    for start, end, kind in _scan_assignments(text, folded):
        yield start, end, kind, _GENERIC
    yield from _scan_numbers(text)
    yield from _scan_credential_context(text, folded)
    yield from _scan_chosen_passwords(text)
    yield from _scan_shapes(text, ascii_text, folded)
    if not text.isascii():
        yield from _scan_unicode(text, priority + 1)


def _scan_folded(text: str, hits: list[tuple[int, list[int]]], priority: int) -> Iterator[_Candidate]:
    """The folded rules matched at each place one of their needles is (`hits`: the places of every
    rule's needles in the lower-cased text, and the rules they open, by index)."""
    first = len(_CONTEXT_RULES)
    for at, owners in hits:
        for owner in owners:  # in order: the context rules' indexes come first
            if owner < first:
                continue
            n = owner - first
            rule = _FOLDED_RULES[n]
            hit = rule.regex.match(text, at)
            span = None if hit is None else _span(rule, hit)
            if span is not None:
                yield span[0], span[1], rule.kind, _GENERIC + 1 if _FOLDED_GENERIC[n] else priority + n + 1


def _scan_unicode(text: str, priority: int) -> Iterator[_Candidate]:
    lowered = text.lower()
    for rule in _UNICODE_RULES:
        if not any(word in lowered for word in rule.needles):
            continue
        for m in rule.regex.finditer(text):
            span = _span(rule, m)
            if span is not None:
                yield span[0], span[1], rule.kind, priority


# A value that looks random, said right after a word for a credential in the same clause ("the SSO
# session token is IQoJb3…", "unseal key 1 of 5: SZiB1…", "sudo pw on the build VM = Gr@nite-…").
_CREDENTIAL_WORDS = (b"key", b"token", b"secret", b"password", b"passphrase", b" pw", b"login", b"credential",
                     b"auth", b"pin ", b"certificate", b"creds", b" pass ", b" pat:", b" pat ")  # fmt: skip
_STRONG_WORDS = (b"password", b"passphrase", b"login", b" pw", b" pass ")
# Short words for a password that are a word only on their own (`pass: …`, `Pass …` in an mbsyncrc,
# `ldap_default_authtok = …`, not "passport", "bypass"): the value must follow at once.
_WHOLE_WORDS = (b"pass", b"pw", b"pwd", b"passwd", b"authtok", b"restore code", b"recovery code")
_WORD_VALUE = regex_cache.compile(
    r"(?:\\?[\"'])?[ \t]{0,2}[:=]?[ \t]{0,2}(?:\\?[\"'`])?([A-Za-z0-9_][A-Za-z0-9+/=_.~!@#$%^&*:?-]{7,127})"
)
_CONTEXT_VALUE = regex_cache.compile(
    r"(?<![A-Za-z0-9+/=_.~!@#$%^&*:-])[A-Za-z0-9_][A-Za-z0-9+/=_.~!@#$%^&*:-]{11,255}"
)
# Right after a password word (`password B4s1l13-`, `pass: x7Kp2m9q`): a shorter value counts too.
_NEAR_VALUE = regex_cache.compile(
    r"[ \t:=\"'`]{1,3}([A-Za-z0-9_][A-Za-z0-9+/=_.~!@#$%^&*:-]{7,10})(?![A-Za-z0-9+/=_.~!@#$%^&*:-])"
)
_FILE_END = regex_cache.compile(r"\.[A-Za-z]{1,5}$")
_EMAIL_OR_HOST = regex_cache.compile(r"[^@\s]*@[A-Za-z0-9-]+\.[A-Za-z]{2,}\S*")
_LINE_END = regex_cache.compile(r"\n")
_CLAUSE_END = regex_cache.compile(r"[.;!?](?:\s|$)|\n")


def _entropy(value: str) -> float:
    from math import log2

    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    return -sum(n / len(value) * log2(n / len(value)) for n in counts.values())


_UUID = regex_cache.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _byte_array_key(m: re.Match[str]) -> bool:
    numbers = [int(n) for n in re.findall(r"[0-9]+", m.group(0))]
    if any(n > 255 for n in numbers):
        return False
    return len(numbers) >= 32 or "key" in m.string[max(0, m.start() - 30) : m.start()].lower()


def _call_literal_ok(value: str) -> bool:
    """A literal handed to a call that is a key: random-looking, and not a UUID (`UUID('6ba7…')`) nor
    an alphabet (`frozenset("ABCDEFGH…")`)."""
    if _UUID.fullmatch(value) or _is_placeholder(value):
        return False
    ascending = max_run = 1
    for a, b in itertools.pairwise(value):
        ascending = ascending + 1 if ord(b) == ord(a) + 1 else 1
        max_run = max(max_run, ascending)
    return max_run < 6 and _random_looking(value)


def _random_looking(value: str, strong: bool = False, near: bool = False) -> bool:
    """`strong`: said right after `password`, `passphrase`, `login`, `pw`: a shorter or word-built
    value counts too (`m4rina.w4ves!`, `Blue-Harbor-Lantern-63`); `near`: the value follows the word
    at once, and eight characters are enough."""
    v = value.rstrip(".,:;!?)")
    joined = [part for part in re.split(r"[_=]+", v) if part]
    if len(joined) >= 2 and all(re.fullmatch(r"[A-Za-z]+[0-9]{0,3}|[0-9]{1,4}", part) for part in joined):
        return False  # `force_zip64=False`, `max_retry_count`: code, not a value
    if near and 8 <= len(v) < 12 and _has_digit_and_letter(v) and not _is_placeholder(v):
        return (
            "://" not in v
            and not v.startswith(("/", "./", "~"))
            and not _shell_variable(v)
            and not (_EMAIL_OR_HOST.fullmatch(v))
        )
    if len(v) < 12:
        return False
    if _base64_key(v):
        return True
    plain = "://" not in v and not v.startswith(("/", "./", "~")) and not _shell_variable(v)
    plain = plain and not _is_placeholder(v)
    if strong and plain and len(v) >= 12 and _has_digit_and_letter(v) and not _EMAIL_OR_HOST.fullmatch(v):
        return True
    if len(v) < 12 or "://" in v or v.startswith(("/", "./", "~")) or _shell_variable(v):
        return False
    if "/" in v and (_FILE_END.search(v) or "*" in v):
        return False  # "keys in lang/pt_PT/*.php": a path or a glob, not a value
    if _DOTTED.fullmatch(v) or _is_placeholder(v) or re.fullmatch(r"[0-9.:-]+", v) or v.isalpha():
        return False
    if _EMAIL_OR_HOST.fullmatch(v):
        return False
    if len(v) >= 32 and re.fullmatch(r"[0-9a-f]+", v) and _has_digit_and_letter(v):
        return True  # a hex key said to be one (a git SHA is 40 and is rarely called a key)
    parts = [part for part in re.split(r"[_\-=|.:/,]+", v) if part]
    if len(parts) >= 2 and all(re.fullmatch(r"[A-Za-z]+[0-9]{0,3}|[0-9]{1,4}", part) for part in parts):
        return False  # words joined like an identifier (`is_authenticated=False`, `Proxy-Authorization`)
    classes = sum(bool(re.search(p, v)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    entropy = _entropy(v)
    if len(v) >= 20 and re.fullmatch(r"[a-z0-9]+|[A-Z0-9]+", v) and entropy >= (3.6 if len(v) >= 24 else 3.8):
        # One case and digits (`34bnizgj88ge3yngjfhfum5tugg2ys`), as many providers issue them.
        digits = sum(c.isdigit() for c in v) / len(v)
        return 0.15 <= digits <= 0.85
    # Sixteen random characters from 62 reach an entropy of 3.5 about one time in two.
    least = 3.5 if len(v) >= 20 else 3.3
    return (len(v) >= 16 and classes >= 3 and entropy >= least) or (classes >= 4 and entropy >= 3.2)


_SHELL_NAME = regex_cache.compile(r"[A-Z0-9_]+|[a-z0-9_]+|[A-Za-z_][a-z0-9_]*|[{(].*")


def _shell_variable(v: str) -> bool:
    """`$HOME`, `$db_host`, `${X}`, `$(cmd)`, `$1`; not `$RKqBomcgN47`, which is a password."""
    return v.startswith("$") and _SHELL_NAME.fullmatch(v[1:]) is not None


_BASE64_KEY = regex_cache.compile(r"[A-Za-z0-9+/]{42,86}={1,2}|[A-Za-z0-9+/]{43,88}")


def _base64_key(v: str) -> bool:
    """A key of 32 to 64 bytes in base64 (`//7FDeh6INEg9S034aWSjqBaM33ZEAKfz65N6fD4pUU=`), which may
    start with a slash: not a path, whose parts are short."""
    if not _BASE64_KEY.fullmatch(v) or (len(v) % 4 and v.endswith("=")):
        return False
    if max(len(part) for part in v.split("/")) < 16:
        return False
    return any(c.isupper() for c in v) and any(c.islower() for c in v) and any(c.isdigit() for c in v)


def _password_shaped(value: str) -> bool:
    """A value a person chose as a password (`Kettle2041&DOR`, `gecko34-Oslo*`): letters and digits
    with both cases or a symbol, no path, address, version or placeholder; or a random one."""
    v = value.rstrip(".,;)")
    if not 8 <= len(v) <= 64 or not _has_digit_and_letter(v) or _is_placeholder(v):
        return False
    if "/" in v or "\\" in v or v.startswith(("$", "%", "~", "-")) or "://" in v:
        return False
    if _EMAIL_OR_HOST.fullmatch(v) or _DOTTED.fullmatch(v) or _DOTTED_NUMBER.fullmatch(v):
        return False
    cases = any(c.isupper() for c in v) and any(c.islower() for c in v)
    return cases or any(c in "!@#$%^&*~+=?" for c in v) or _random_looking(v)


# A word a person made up as a password, with nothing said around it ("ssh in as root, its
# ember-Denver-32#"): both cases, a digit and a symbol no identifier, path or address holds.
_CHOSEN_SYMBOLS = "!#$%&~?^"  # not `+` or `*`: `January+12` is arithmetic
_CHOSEN_TOKEN = regex_cache.compile(
    r"[A-Za-z0-9](?<![^\s\"'`(\[{<,;:].)[A-Za-z0-9!#$%&*~+?^._-]{8,38}[A-Za-z0-9!#$%&*~+?^]"
    r"(?=$|[\s\"'`)\]}>,;:])"
)


# A quoted string that is a chosen password: both cases, a digit and a symbol (`'Mang#185Igloo.'`,
# `"Autumn2022@Violet"`, `'Marm=542Walrus+'`). Looked for apart from the needle scan: a quote is in
# most texts, and as a needle it would be a hit at every one.
_QUOTED_WORD = regex_cache.compile(
    r"(?<![\w\\])(?P<q>['\"])(?P<v>[A-Za-z0-9][^\s'\"\\<>]{6,62}[^\s'\"\\<>])(?:\\[rn])?(?P=q)", re.A
)


def _scan_chosen_passwords(text: str) -> Iterator[_Candidate]:
    if "'" in text or '"' in text:
        for m in _QUOTED_WORD.finditer(text):
            if _quoted_password(m.group("v")):
                yield m.start("v"), m.end("v"), "password", _GENERIC + 3
    if not any(symbol in text for symbol in _CHOSEN_SYMBOLS):
        return
    for m in _CHOSEN_TOKEN.finditer(text):
        v = m.group(0)
        inner = v.rstrip("!?")
        if not any(c in _CHOSEN_SYMBOLS for c in inner[:-1] if c != "?") and not inner.endswith(
            tuple("#$%&~^")
        ):
            continue  # the symbol only ends a sentence ("is it Umber86?")
        if not (any(c.isupper() for c in v) and any(c.islower() for c in v) and any(c.isdigit() for c in v)):
            continue
        if _EMAIL_OR_HOST.fullmatch(v) or _is_placeholder(v) or "&&" in v or "||" in v:
            continue
        yield m.start(), m.end(), "password", _GENERIC + 3


def _flag_value(value: str) -> bool:
    """What follows a password or token flag: a chosen password, or a token (`p.eyJ1Ijog…`, whose
    dot would make it a dotted name to `_random_looking`)."""
    if _password_shaped(value) or _random_looking(value):
        return True
    return len(value) >= 32 and _has_digit_and_letter(value) and "/" not in value and _entropy(value) >= 4.0


def _quoted_password(value: str) -> bool:
    """A quoted literal that is a password, not a name, a format or a version: both cases, a digit
    and a symbol that joins no identifier (`.` only inside a word, never as in `a.b.c`)."""
    if not _password_shaped(value) or _DOTTED.fullmatch(value.rstrip(".")) or value[:1].isdigit():
        return False
    cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return cases and any(c in "!#$%&*~+=?^@." for c in value) and not _EMAIL_OR_HOST.fullmatch(value)


# A password told in conversation: "the bios password on the lab machines is 74316765", "my macbook
# login is Nala0810!", "the wifi at the office is scarfcumin2606", "passphrase to "ginger autumn…"",
# "the sim pin, it's 8003". The value follows the word, a few words and a verb.
_TOLD_WORDS = (b"password", b"passphrase", b"passcode", b"login", b"wifi", b"wi-fi", b"pin")
_TOLD = regex_cache.compile(
    r"[ \t]*,?(?:(?:[ \t]+[\w'-]+){0,6}?[ \t]+(?:is|was|to|it's|it is)[ \t]+|[ \t]*[=:][ \t]*)"
    r"(?:literally[ \t]+)?"
    r"(?:(?P<q>[\"“'])(?P<quoted>[^\"”'\n]{4,64})[\"”']|(?P<v>[^\s,;()\"'“]{4,64}))"
)
_WORDY_END = ("ly", "ed", "ing", "tion", "ment", "ness", "able", "ible")


def _told_value(word: bytes, m: re.Match[str]) -> tuple[int, int] | None:
    if m.group("quoted") is not None:
        quoted = m.group("quoted")
        if word in (b"wifi", b"wi-fi", b"login") or len(quoted.split()) > 6 or _is_placeholder(quoted):
            return None  # a quoted name after "wifi is" or "login is" is the network's or the user's
        return m.start("quoted"), m.end("quoted")
    v = m.group("v").rstrip(".,!?:")
    if word == b"pin":
        ok = v.isdigit() and 4 <= len(v) <= 8
    elif v.isdigit():
        ok = len(v) >= 6
    elif v.isalpha():
        if word in (b"password", b"passphrase"):
            words = _told_words(m.string, m.start("v"))
            if words is not None:
                return words
        ok = word == b"passphrase" and len(v) >= 12 and v.islower() and not v.endswith(_WORDY_END)
    elif word != b"login" and len(v) >= 8 and _has_digit_and_letter(v):
        ok = not _DOTTED.fullmatch(v) and not _DOTTED_NUMBER.fullmatch(v)  # a login may be a user name
    else:
        ok = len(v) >= 6 and _has_digit_and_letter(v) and _password_shaped(v + "0" if len(v) < 8 else v)
    if not ok or _is_placeholder(v) or _EMAIL_OR_HOST.fullmatch(v) or "/" in v:
        return None
    return m.start("v"), m.start("v") + len(m.group("v").rstrip(".,:"))


# A password of words said in a sentence ("the master password … is Canyon Velvet Sweater", "is
# literally rainbow monkey summer with the spaces"): three to six words before a small word or the
# clause's end, none of which says something of the password ("is stored in the vault").
_TOLD_WORDS_RUN = regex_cache.compile(
    r"(?:[A-Za-z]{2,12}|[0-9]{1,4})(?:[ \t]+(?:[A-Za-z]{2,12}|[0-9]{1,4})){2,5}"
)
_SAID_OF_A_PASSWORD = frozenset(
    re.findall(
        r"\S+",
        "required wrong incorrect expired invalid correct right same different empty blank missing too "
        "not no now still already set stored saved kept rotated changed reset generated shown sent hashed "
        "encrypted long short weak strong case sensitive also always never being super really very just "
        "only in on at of by via under inside somewhere here there what where which that the a an my our "
        "your their mandatory optional needed necessary given known unknown managed handled fine ok okay "
        "good bad hard easy simple random unique secure insecure default disabled enabled",
    )
)


def _told_words(text: str, start: int) -> tuple[int, int] | None:
    run = _TOLD_WORDS_RUN.match(text, start)
    if run is None:
        return None
    words: list[re.Match[str]] = []
    for word in re.finditer(r"\S+", run.group(0)):
        low = word.group(0).lower()
        if low in _SMALL_WORDS or low in _SAID_OF_A_PASSWORD or low in _SENTENCE_WORDS:
            break
        if len(low) <= 2 and low.isalpha():
            break
        words.append(word)
    if len(words) < 3 or words[0].group(0).lower().endswith(_WORDY_END):
        return None
    if any(
        w.group(0).lower() in ("password", "passphrase", "pass", "login", "user", "username") for w in words
    ):
        return None  # "password: password to use with username", a description
    return start + words[0].start(), start + words[-1].end()


def _word_ends(folded: bytes, words: tuple[bytes, ...]) -> Iterator[tuple[bytes, int]]:
    """Each of `words` standing alone in the folded text (no letter or digit either side), with
    where it ends."""
    for word in words:
        i = folded.find(word)
        while i != -1:
            end = i + len(word)
            if not folded[i - 1 : i].isalnum() and not folded[end : end + 1].isalnum():
                yield word, end
            i = folded.find(word, end)


def _scan_told_passwords(text: str, folded: bytes) -> Iterator[_Candidate]:
    for word, end in _word_ends(folded, _TOLD_WORDS):
        m = _TOLD.match(text, end)
        span = None if m is None else _told_value(word, m)
        if span is not None:
            yield span[0], span[1], "password", _GENERIC + 3
        if word in (b"password", b"passphrase", b"passcode"):
            span = _numeric_password(text, end)
            if span is not None:
                yield span[0], span[1], "password", _GENERIC + 3


def _scan_whole_words(text: str, folded: bytes) -> Iterator[_Candidate]:
    for _word, end in _word_ends(folded, _WHOLE_WORDS):
        m = _WORD_VALUE.match(text, end)
        if m and _random_looking(m.group(1), strong=True, near=True):
            value = m.group(1).rstrip(".,:;!?)")
            yield m.start(1), m.start(1) + len(value), "credential", _GENERIC + 2


# A password of digits given after a colon, a few words on from the word ("protected with a
# password — for me it's my birth date plus the last 4 of the card: 280419631485"): eight digits
# and more, where the label before the colon is no number's of another kind.
_NUMERIC_PASSWORD = regex_cache.compile(r"[^\n:]{0,80}:[ \t]*(?P<v>[0-9]{8,20})(?![\w:/-]|[.,]?[0-9])")
_LABEL = regex_cache.compile(r"([\w-]*)[ \t]*:")
_OTHER_NUMBERS = frozenset(
    re.findall(
        r"\S+",
        "port phone tel telephone mobile fax id number no nr version length count timeout limit size hash "
        "date time epoch timestamp ticket order case ref reference invoice account iban routing zip code "
        "pin otp build revision commit serial ms seconds ttl expiry expires max min age duration interval "
        "uid gid user userid pid record",
    )
)
_DATE_DIGITS = regex_cache.compile(r"(?:19|20)[0-9]{2}[01][0-9][0-3][0-9]|1[0-9]{9}|1[0-9]{12}")


def _numeric_password(text: str, end: int) -> tuple[int, int] | None:
    m = _NUMERIC_PASSWORD.match(text, end)
    if m is None or _DATE_DIGITS.fullmatch(m.group("v")) or _in_marker(m):
        return None  # none, a date (20240131) or a moment in Unix time
    colon = text.rindex(":", end, m.start("v"))
    label = _LABEL.search(text, max(end, colon - 40), colon + 1)
    if label is not None and label.group(1).lower() in _OTHER_NUMBERS:
        return None
    return m.span("v")


# A block of a config named for what it holds (Consul's `acl { tokens { agent = "5ea0…" } }`, a
# `"credentials": { … }` object): each literal in it that reads as a secret, a UUID included (Consul
# and others issue their tokens as UUIDs).
_BLOCK_KINDS = {
    b"tokens": "token",
    b"secrets": "secret",
    b"credentials": "credential",
    b"passwords": "password",
}
_SECRET_BLOCK = regex_cache.compile(
    r"(?:tokens|secrets|credentials|passwords)[\"']?[ \t]*[:=]?[ \t]*\{", re.I
)
_BLOCK_WORDS = tuple(_BLOCK_KINDS)
_BLOCK_ENTRY = regex_cache.compile(r"[\"']?[\w.-]+[\"']?[ \t]*[:=][ \t]*[\"'](?P<v>[^\"'\n]{8,256})[\"']")


def _scan_secret_blocks(text: str, folded: bytes) -> Iterator[_Candidate]:
    for word, end in _word_ends(folded, _BLOCK_WORDS):
        m = _SECRET_BLOCK.match(text, end - len(word))
        close = -1 if m is None else text.find("}", m.end(), m.end() + 4000)
        if m is None or close == -1 or "{" in text[m.end() : close]:
            continue  # no block, or one holding others (each of them has its own name)
        for entry in _BLOCK_ENTRY.finditer(text, m.end(), close):
            v = entry.group("v")
            if (_UUID.fullmatch(v) or _random_looking(v)) and not _is_placeholder(v):
                yield entry.start("v"), entry.end("v"), _BLOCK_KINDS[word], _GENERIC + 2


# A user name and its password written down as a pair under a word for signing in ("anyone have
# the staging rabbitmq login? … use ops / 2kTOzS1_uE8d"): the second must look chosen.
_ACCOUNT_PAIR = regex_cache.compile(r"[A-Za-z][\w.@-]{1,31}[ \t]+/[ \t]+(?P<v>[^\s/]{8,64})")
_LOGIN_WORDS = regex_cache.compile(
    r"(?i)\b(?:login|log ?in|logins|sign ?in|creds?|credentials|username|user name|password|passwd)\b"
)


def _scan_account_pairs(text: str) -> Iterator[_Candidate]:
    at = text.find(" / ")
    while at != -1:
        start = at
        while start > 0 and start > at - 32 and (text[start - 1].isalnum() or text[start - 1] in "_.@-"):
            start -= 1
        m = _ACCOUNT_PAIR.match(text, start) if start == 0 or text[start - 1] in " \t\n(:,\"'`" else None
        if m is not None:
            v = m.group("v").rstrip(".,;:!?)")
            if (
                _password_shaped(v)
                and not _looks_like_code(v)
                and not _DOTTED.fullmatch(v)
                and _LOGIN_WORDS.search(text, max(0, start - 160), start)
                and not _in_marker(m)
            ):
                yield m.start("v"), m.start("v") + len(v), "password", _GENERIC + 3
        at = text.find(" / ", at + 3)


def _scan_credential_context(text: str, folded: bytes) -> Iterator[_Candidate]:
    yield from _scan_whole_words(text, folded)
    yield from _scan_told_passwords(text, folded)
    if b"{" in folded:
        yield from _scan_secret_blocks(text, folded)
    if " / " in text and _LOGIN_WORDS.search(text):
        yield from _scan_account_pairs(text)
    seen: set[int] = set()
    for word in _CREDENTIAL_WORDS:
        i = folded.find(word)
        while i != -1:
            opened = folded.rfind(b"[redacted:", max(0, i - 40), i)
            if opened != -1 and folded.find(b"]", opened) > i:
                i = folded.find(word, i + 1)
                continue  # a word inside a marker (`[REDACTED:url-password]`) is no context
            window_end = i + len(word) + 80
            strong = word in _STRONG_WORDS
            # After a password word a `;` or `.` may come before the value ("…passphrase during git
            # commit -S; it's Blue-Harbor-Lantern-63"): only a line ends its clause.
            clause = (_LINE_END if strong else _CLAUSE_END).search(text, i + len(word), window_end)
            stop = clause.start() if clause else min(window_end, len(text))
            if clause and text[i + len(word) : clause.start()].rstrip().endswith(":"):
                # "access token (long one):" with the value on the line below.
                below = text.find("\n", clause.end())
                stop = below if below != -1 else len(text)
            if strong:
                short = _NEAR_VALUE.match(text, i + len(word), stop)
                if short and short.start(1) not in seen and _random_looking(short.group(1), strong, True):
                    seen.add(short.start(1))
                    yield short.start(1), short.end(1), "credential", _GENERIC + 2
            for m in _CONTEXT_VALUE.finditer(text, i + len(word), stop):
                if m.start() not in seen and _random_looking(m.group(0), strong):
                    seen.add(m.start())
                    end = m.start() + len(m.group(0).rstrip(".,:;!?)"))
                    yield m.start(), end, "credential", _GENERIC + 2
            i = folded.find(word, i + 1)


# --------------------------------------------------------------------------------------------------------
# Secrets known by their shape, with no word or prefix to find them by.

# A key, a keystore or a certificate bundle pasted as base64 (`base64 upload.jks`, a `.p12`, a Chef
# data bag secret): lines of base64 and nothing else, at least two, or one long one. A public
# certificate or key block and an `ssh-rsa AAAA…` line are public, and left as they are.
_BASE64_LINES = regex_cache.compile(
    r"(?m)^[ \t]*(?P<v>[A-Za-z0-9+/_=-]{40,}(?:\r?\n[ \t]*[A-Za-z0-9+/_=-]{16,})*)[ \t]*\r?$"
)
_PUBLIC_ARMOUR = regex_cache.compile(r"-----BEGIN [A-Z0-9 ]*(?:CERTIFICATE|PUBLIC KEY)[A-Z0-9 ]*-----")
_PUBLIC_KEY_LEAD = regex_cache.compile(r"(?:ssh-[a-z0-9]+|ecdsa-[a-z0-9-]+|sha(?:1|256|384|512)-?)[ \t]*$")


def _hex_block(lines: list[str]) -> bool:
    """Three lines and more of hex of one width (a licence's key, an exported wallet), but not a list
    of digests: 32, 40, 64 or 128 digits to the line."""
    width = len(lines[0])
    return (
        len(lines) >= 3
        and width >= 40
        and width not in (32, 40, 64, 128)
        and all(len(line) == width or (line is lines[-1] and len(line) <= width) for line in lines)
        and all(re.fullmatch(r"[0-9a-f]+|[0-9A-F]+", line) for line in lines)
    )


def _scan_base64_blocks(text: str) -> Iterator[_Candidate]:
    if "\n" not in text:
        return
    for m in _BASE64_LINES.finditer(text):
        v = m.group("v")
        lines = v.split()
        if len(lines) < 2 and len(v) < 60:
            continue
        if _hex_block(lines):
            yield m.start("v"), m.end("v"), "secret", _GENERIC + 4
            continue
        if not (_mixed_case(m) and any(c.isdigit() for c in v)) or _entropy(v) < 4.5:
            continue  # `----------…`, a row of `=`, words joined by dashes
        if max(len(part) for part in re.split(r"[_-]+", v)) < 16:
            continue  # identifiers and slugs joined by `_` or `-`
        before = text[max(0, m.start() - 200) : m.start()]
        if _PUBLIC_ARMOUR.search(before) and "PRIVATE" not in before[before.rfind("-----BEGIN") :]:
            continue
        yield m.start("v"), m.end("v"), "secret", _GENERIC + 4


# A wallet's seed phrase or a paper key: twelve words and more in lower case with none of the small
# words every sentence has ("cupboard autumn marble plunge elbow …").
_WORD_RUN = regex_cache.compile(
    r"(?<![\w'’-])[a-z]{3,8}(?:(?:[ \t]+|[ \t]*\r?\n[ \t]*)[a-z]{3,8}){11,24}(?![\w'’-])"
)
_WORD_IN_RUN = regex_cache.compile(r"[a-z]+")
_SMALL_WORDS = frozenset(
    # (not the words of the BIP39 list: "very", "only", "want", "that" may be words of a seed)
    re.findall(
        r"\S+",
        "the and for with from are was were has had not but which who how would should could our your "
        "their them its than these those been does did some many most out per via get got let using runs "
        "files line lines tests see yes why may new her his him she let's i'm don't",
    )
)


_WORD_RUN_MASK = _mask(string.ascii_lowercase + " \t\r\n")
_BASE64_MASK = _mask(string.ascii_letters + string.digits + "+/=")


def _scan_word_runs(text: str, ascii_text: bytes) -> Iterator[_Candidate]:
    # Twelve words of three letters and more are 47 characters of lower-case letters and spaces.
    for start, end in _runs_of(ascii_text, _WORD_RUN_MASK, 47):
        yield from _word_runs(text, start, end)


def _word_runs(text: str, start: int, end: int) -> Iterator[_Candidate]:
    for m in _WORD_RUN.finditer(text, start, end):
        # The stretches between small words ("… giraffe burger\nhow do I …" ends at "how").
        stretch: list[re.Match[str]] = []
        for word in itertools.chain(_WORD_IN_RUN.finditer(text, m.start(), m.end()), (None,)):
            if word is not None and word.group(0) not in _SMALL_WORDS:
                stretch.append(word)
                continue
            words = [w.group(0) for w in stretch]
            if len(words) >= 12 and len(set(words)) >= len(words) - 2:
                yield stretch[0].start(), stretch[-1].end(), "private-key", _GENERIC + 4
            stretch = []


# `user:password` in base64, handed over as a string to authenticate with (a Basic header's
# credentials, a Docker `auth`): a standalone token that decodes to a name, a colon and a password.
_BASE64_TOKEN = regex_cache.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{16,200}={0,2}(?![A-Za-z0-9+/=_-])")
_DECODED_CREDENTIAL = regex_cache.compile(rb"[\x21-\x39\x3b-\x7e]{1,64}:[\x20-\x7e]{4,128}")


def _password_part(decoded: str) -> bool:
    """What follows the colon is a password: six characters and more, not one plain word."""
    password = decoded.split(":", 1)[1]
    return len(password) >= 6 and not (password.isalpha() and (password.islower() or password.isupper()))


def _scan_encoded_credentials(text: str, ascii_text: bytes) -> Iterator[_Candidate]:
    for start, end in _runs_of(ascii_text, _BASE64_MASK, 16):
        yield from _encoded_credentials(text, max(0, start - 1), min(len(text), end + 1))


def _encoded_credentials(text: str, start: int, end: int) -> Iterator[_Candidate]:
    for m in _BASE64_TOKEN.finditer(text, start, end):
        v = m.group(0)
        if len(v) % 4 or not _mixed_case(m):
            continue
        try:
            decoded = base64.b64decode(v, validate=True)
        except (binascii.Error, ValueError):
            continue
        if _DECODED_CREDENTIAL.fullmatch(decoded) and _password_part(decoded.decode("ascii")):
            yield m.start(), m.end(), "credential", _GENERIC + 2


# A mail relay's or a service's credentials file: `relay@acme.de:28PHqn-eGHq7jLB5` (Postfix
# sasl_passwd, Exim passwd.client), an address, a colon, a password.
_ADDRESS_PASSWORD = regex_cache.compile(
    r"@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+:(?P<v>[^\s:@/\"'<>]{8,64})(?![^\s,;])"
)


def _scan_address_passwords(text: str) -> Iterator[_Candidate]:
    at = text.find("@")
    while at != -1:  # tried at each `@`, not at each word
        m = _ADDRESS_PASSWORD.match(text, at)
        if m is not None and at and (text[at - 1].isalnum() or text[at - 1] in "_.+-"):
            v = m.group("v")
            if _password_shaped(v) and not v.isdigit():
                yield m.start("v"), m.end("v"), "password", _GENERIC + 3
        at = text.find("@", at + 1)


# A Markdown table with a column for passwords or tokens: every cell of that column below the header.
_TABLE_SECRET_HEADER = regex_cache.compile(
    r"(?i)^(?:password|passwd|pass|pw|pwd|secret|token|api[ _-]?key|access[ _-]?key|pin|passphrase)$"
)
# A header that names whose secret it is ("Client secret", "Admin password", "Bot token"): any cell
# could be a word there ("Reset password | yes"), so only a value shaped like a credential is taken.
_TABLE_NAMED_SECRET_HEADER = regex_cache.compile(
    r"(?i)^[a-z0-9]+(?:[ _-][a-z0-9]+)?[ _-](?P<word>password|passwd|passphrase|secret|token|"
    r"api[ _-]?key|secret[ _-]?key|access[ _-]?key)$"
)


def _lines_at(text: str) -> tuple[list[str], list[int]]:
    """The text's lines and where each starts."""
    lines = text.split("\n")
    return lines, list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))


def _scan_table_columns(text: str) -> Iterator[_Candidate]:
    lines, offsets = _lines_at(text)
    column: int | None = None
    named: re.Match[str] | None = None  # the header, when it names whose secret the column holds
    for n, line in enumerate(lines):
        cells = line.strip().strip("|").split("|") if line.lstrip().startswith("|") else None
        if cells is None:
            column = None
            continue
        names = [cell.strip() for cell in cells]
        if column is None:
            column = next((k for k, name in enumerate(names) if _TABLE_SECRET_HEADER.match(name)), None)
            named = None
            if column is None:
                found = ((k, _TABLE_NAMED_SECRET_HEADER.match(name)) for k, name in enumerate(names))
                column, named = next(((k, h) for k, h in found if h is not None), (None, None))
            continue
        if column >= len(names) or set(names[column]) <= set("-: "):
            continue
        value = names[column]
        if len(value) < 4 or _is_placeholder(value) or " " in value:
            continue
        kind = "password"
        if named is not None:
            if not (_random_looking(value) or _password_shaped(value)):
                continue
            word = named.group("word").lower()
            kind = "token" if word == "token" else "secret" if word == "secret" else kind
            kind = "api-key" if "key" in word else kind
        start = offsets[n] + line.index("|") + 1 + sum(len(c) + 1 for c in cells[:column])
        start += len(cells[column]) - len(cells[column].lstrip())
        yield start, start + len(value), kind, _GENERIC + 3


# Recovery or backup codes, one to a line, announced as such ("the recovery codes npm showed me:").
_CODE_LINE = regex_cache.compile(
    r"[ \t]*(?:[-*•][ \t]+|[0-9]{1,2}[.)][ \t]+)?(?P<v>[A-Za-z0-9][A-Za-z0-9-]{6,62}[A-Za-z0-9])[ \t,]*\r?"
)
_CODES_WORDS = (
    "code",
    "codic",
    "códig",
    "codig",
    "kod",
    "backup",
    "recovery",
    "wiederherstellung",
    "secours",
)


def _scan_code_lists(text: str) -> Iterator[_Candidate]:
    lines, offsets = _lines_at(text)
    run: list[tuple[int, re.Match[str]]] = []
    for n, line in enumerate([*lines, ""]):
        m = _CODE_LINE.fullmatch(line)
        if m is not None and (m.group("v").isdigit() or _has_digit_and_letter(m.group("v"))):
            run.append((n, m))
            continue
        widths = [len(code.group("v")) for _, code in run]
        if len(run) >= 3 and max(widths) - min(widths) <= 2:
            before = text[max(0, offsets[run[0][0]] - 240) : offsets[run[0][0]]].lower()
            if any(word in before for word in _CODES_WORDS):
                for k, code in run:
                    yield offsets[k] + code.start("v"), offsets[k] + code.end("v"), "credential", _GENERIC + 4
        run = []


# Seed words written down numbered, in one column or more ("the recovery sheet I filled in … 1. arm
# 13. bid"): single words numbered 1 to 12 or 24 with no gap, under a word for a seed.
_NUMBERED_WORDS_LINE = regex_cache.compile(r"[ \t]*(?:[0-9]{1,2}[.):][ \t]*[a-z]{3,8}(?:[ \t]+|$)){1,4}\r?")
_NUMBERED_WORD = regex_cache.compile(r"([0-9]{1,2})[.):][ \t]*([a-z]{3,8})")
_SEED_WORDS = (b"seed", b"recovery", b"mnemonic", b"phrase", b"wallet", b"bip39", b"words")


def _scan_numbered_words(text: str) -> Iterator[_Candidate]:
    lines, offsets = _lines_at(text)
    run: list[int] = []
    for n, line in enumerate([*lines, ""]):
        if line.strip() and _NUMBERED_WORDS_LINE.fullmatch(line):
            run.append(n)
            continue
        found = [(offsets[k], w) for k in run for w in _NUMBERED_WORD.finditer(lines[k])]
        numbers = sorted(int(w.group(1)) for _, w in found)
        if len(found) in (12, 15, 18, 20, 21, 24, 33) and numbers == list(range(1, len(found) + 1)):
            before = text[max(0, offsets[run[0]] - 300) : offsets[run[0]]].lower().encode("ascii", "replace")
            if any(word in before for word in _SEED_WORDS):
                for at, w in found:
                    yield at + w.start(2), at + w.end(2), "seed-phrase", _GENERIC + 4
        run = []


# A provider's token that a narrow terminal or pane wrapped onto the next line (`…oauth2:ghp_RVC5…T` and
# `rQyU…r@github.com` below it): the prefix's line ends inside the token, the next line goes on with
# token characters, and the two joined are the provider's token while the first alone is not.
_WRAPPED_PREFIXES = tuple(
    p.encode()
    for p in (
        "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxe-",
        "xapp-", "sk-ant-", "sk-proj-", "npm_", "hf_", "AKIA", "AIza", "ya29.", "pypi-", "sk_live_",
        "rk_live_", "dop_v1_", "shpat_", "glsa_", "hvs.", "dckr_pat_", "sbp_", "lin_api_", "figd_",
    )
)  # fmt: skip
_TOKEN_TAIL = regex_cache.compile(r"[A-Za-z0-9_.-]+")


def _token_chars_end(text: str, pos: int) -> int:
    """Where the run of token characters starting at `pos` ends."""
    run = _TOKEN_TAIL.match(text, pos)
    return pos if run is None else run.end()


def _scan_wrapped_tokens(text: str, ascii_text: bytes) -> Iterator[_Candidate]:
    for prefix in _WRAPPED_PREFIXES:
        i = ascii_text.find(prefix)
        while i != -1:
            line_end = _token_chars_end(text, i + len(prefix))
            below = line_end + (2 if text.startswith("\r\n", line_end) else 1)
            if (i == 0 or not text[i - 1].isalnum()) and text.startswith(("\n", "\r\n"), line_end):
                tail_end = _token_chars_end(text, below)
                left = text[i:line_end]
                joined = left + text[below:tail_end]
                for priority, rule in enumerate(_TOKEN_RULES):
                    whole = rule.regex.match(joined)
                    if whole is None or whole.end() <= len(left) or _span(rule, whole) is None:
                        continue
                    alone = rule.regex.match(left)
                    if alone is None or alone.end() < len(left):
                        yield i, below + whole.end() - len(left), rule.kind, priority
                    break
            i = ascii_text.find(prefix, i + 1)


def _scan_shapes(text: str, ascii_text: bytes, folded: bytes) -> Iterator[_Candidate]:
    yield from _scan_base64_blocks(text)
    if text.count("\n") >= 3:
        yield from _scan_code_lists(text)
        if (b"1." in ascii_text or b"1)" in ascii_text) and any(w in folded for w in _SEED_WORDS):
            yield from _scan_numbered_words(text)
    if "\n" in text:
        yield from _scan_wrapped_tokens(text, ascii_text)
    yield from _scan_word_runs(text, ascii_text)
    yield from _scan_encoded_credentials(text, ascii_text)
    if "@" in text:
        yield from _scan_address_passwords(text)
    if "\n|" in text or text.lstrip().startswith("|"):  # a table's rows start with `|`
        yield from _scan_table_columns(text)


# Card numbers: 13 to 19 digits, Luhn-valid, from a card network's range (3, 4, 5, 6), written in
# groups (`4111 1111 1111 1111`, `3782-822463-10005`) or named as a card. An IBAN: its mod-97 check.
# The look-ahead wants thirteen digits before anything else is tried: a date (2026-11-01), of which
# a memory holds thousands, is turned away at its first character.
_CARD = regex_cache.compile(
    r"(?<![0-9.,/-])(?=(?:[0-9][ -]?){12}[0-9])[2-6][0-9]{3}(?:[ -]?[0-9]{2,6}){2,4}(?![0-9]|[.,/-][0-9])"
)
_DATE_LEAD = regex_cache.compile(r"(?:19|20)[0-9]{2}-[01][0-9]-[0-3][0-9](?![0-9])")
_CARD_WORDS = regex_cache.compile(r"card|visa|master|amex|credit|debit|\bcc\b|cvv|payment|\bpan\b", re.I)
_IBAN = regex_cache.compile(
    r"(?<![A-Z0-9])[A-Z]{2}[0-9]{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?(?![A-Z0-9])"
)


def _luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _iban_ok(value: str) -> bool:
    compact = value.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in moved)
    return int(number) % 97 == 1


def _scan_numbers(text: str) -> Iterator[_Candidate]:
    for m in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", m.group(0))
        if not 13 <= len(digits) <= 19 or not _luhn(digits):
            continue
        if _DATE_LEAD.match(m.group(0)):
            continue  # "2026-10-04 00000000": a day and a session id, not a card
        grouped = " " in m.group(0) or "-" in m.group(0)
        if grouped or _CARD_WORDS.search(text, max(0, m.start() - 48), m.start()):
            yield m.start(), m.end(), "card-number", _GENERIC - 1
    for m in _IBAN.finditer(text):
        if _iban_ok(m.group(0)):
            yield m.start(), m.end(), "iban", _GENERIC - 1


def _candidates(text: str) -> Iterator[_Candidate]:
    """Every secret-looking span that does not overlap an existing marker (markers are inert)."""
    if not text:
        return
    # Literals are searched in an ASCII copy: `replace` turns each non-ASCII character into one `?`, so
    # offsets agree with the text, and searching bytes is faster than searching a wide string.
    ascii_text = text.encode("ascii", "replace")
    if _MARKER_NEEDLE not in ascii_text:
        yield from (c for c in _raw_candidates(text, ascii_text) if c[1] > c[0])
        return
    markers = [(mk.start(), mk.end()) for mk in _MARKER.finditer(text)]
    marker_starts = [s for s, _ in markers]
    for cand in _raw_candidates(text, ascii_text):
        start, end = cand[0], cand[1]
        k = bisect_left(marker_starts, end)  # markers starting before the candidate ends
        if end > start and (k == 0 or markers[k - 1][1] <= start):
            yield cand


def _merge(candidates: Iterable[_Candidate]) -> list[tuple[int, int, str]]:
    """Union of overlapping spans; each union takes the kind of its longest (then most specific) member."""
    ordered = sorted(candidates)
    merged: list[tuple[int, int, str]] = []
    group: list[_Candidate] = []
    group_end = -1

    def close() -> None:
        if group:
            best = min(group, key=lambda c: (-(c[1] - c[0]), c[3], c[0]))
            merged.append((group[0][0], group_end, best[2]))

    for cand in ordered:
        if group and cand[0] < group_end:
            group.append(cand)
            group_end = max(group_end, cand[1])
        else:
            close()
            group = [cand]
            group_end = cand[1]
    close()
    return merged


def _replace(text: str, spans: list[tuple[int, int, str]]) -> str:
    parts: list[str] = []
    pos = 0
    for start, end, kind in spans:
        parts.append(text[pos:start])
        parts.append(marker(kind))
        pos = end
    parts.append(text[pos:])
    return "".join(parts)


def _to_original(spans: list[tuple[int, int, str]], found: list[tuple[int, int, str]]) -> list[_Candidate]:
    """Map spans found in the redacted text (never inside a marker) back to offsets in the original."""
    out_ends: list[int] = []  # where each marker ends in the redacted text
    shifts: list[int] = []  # original offset minus redacted offset after each marker
    shift = 0
    for start, end, kind in spans:
        out_ends.append(start - shift + len(marker(kind)))
        shift += (end - start) - len(marker(kind))
        shifts.append(shift)

    def back(p: int) -> int:
        k = bisect_right(out_ends, p) - 1
        return p + (shifts[k] if k >= 0 else 0)

    return [(back(s), back(e), kind, _GENERIC) for s, e, kind in found]


def redact(text: str) -> RedactionResult:
    """Replace every secret in `text` with a marker naming its kind."""
    spans = _merge(_candidates(text))
    if not spans:
        return RedactionResult(text, ())
    while True:
        out = _replace(text, spans)
        # A marker changes what surrounds it (a boundary that blocked a match may now be `]`): re-scan until
        # the output holds nothing more, so redacting the output again is a no-op.
        found = _merge(_candidates(out))
        if not found:
            break
        spans = _merge([(s, e, k, 0) for s, e, k in spans] + _to_original(spans, found))
    again = _repeats(text, spans)
    if again:
        spans = _merge([(s, e, k, 0) for s, e, k in spans] + again)
        out = _replace(text, spans)
    return RedactionResult(out, tuple(Redaction(kind, start, end) for start, end, kind in spans))


def _repeats(text: str, spans: list[tuple[int, int, str]]) -> list[_Candidate]:
    """The other places a redacted value stands in the text: the key in `apiKey = "e2d7…"` is in the
    URL above it too, the PIN said in a sentence is in the command after it."""
    taken = {(s, e) for s, e, _ in spans}
    found: list[_Candidate] = []
    for start, end, kind in spans:
        value = text[start:end]
        if len(value) < 4 or text.count(value) < 2:
            continue
        if not (value.isdigit() or _has_digit_and_letter(value)) or _is_placeholder(value):
            continue  # only what no word, name or format string (`'%s:%s'`) could be too
        i = text.find(value)
        while i != -1:
            j = i + len(value)
            if (i, j) not in taken and not text[i - 1 : i].isalnum() and not text[j : j + 1].isalnum():
                found.append((i, j, kind, _GENERIC))
            i = text.find(value, j)
    return found


def contains_secret(text: str) -> bool:
    """Whether `redact` would change `text`; stops at the first secret."""
    return next(_candidates(text), None) is not None


def secret_kinds(text: str) -> list[str]:
    """The distinct kinds of secret in `text`, in order of first appearance."""
    return list(redact(text).kinds)
