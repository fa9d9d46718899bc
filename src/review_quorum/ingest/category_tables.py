"""The category vocabulary and the tables that map tools' rules onto it (data only).

`CATEGORIES` is the eleven coarse names every reader maps onto; the tables below say which
CWE ids, tags, rule-id path segments, linter code prefixes, ESLint plugins and rules, and
whole tools mean which category, and how tool names are spelt. They are data: the order
in which they are consulted is `categories.Categorizer`'s. The tables are documented for
users in ``docs/categories.md``, and a test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Mapping

CATEGORIES = (
    "security",
    "logic_error",
    "resource_leak",
    "concurrency",
    "error_handling",
    "data_integrity",
    "performance",
    "maintainability",
    "documentation",
    "testing",
    "other",
)
CATEGORY_SET = frozenset(CATEGORIES)

SECURITY = "security"
LOGIC = "logic_error"
LEAK = "resource_leak"
CONCURRENCY = "concurrency"
ERRORS = "error_handling"
DATA = "data_integrity"
PERFORMANCE = "performance"
MAINTAINABILITY = "maintainability"
DOCUMENTATION = "documentation"
TESTING = "testing"
OTHER = "other"


def _table(spec: Mapping[str, str]) -> dict[int, str]:
    """CWE ids written as space-separated numbers per category, inverted to id -> category."""
    return {
        int(number): category for category, numbers in spec.items() for number in numbers.split()
    }


def _name_codes(text: str) -> dict[str, int]:
    """``code:name`` pairs separated by whitespace, as name -> code."""
    pairs = (pair.split(":") for pair in text.split())
    return {name: int(code) for code, name in pairs}


CWE_CATEGORIES: dict[int, str] = _table(
    {
        SECURITY: (
            "15 20 22 23 36 73 74 77 78 79 80 88 89 90 91 93 94 95 96 97 98 113 116 117 134 "
            "176 200 201 209 215 226 250 256 259 260 261 269 276 281 284 285 287 288 290 "
            "294 295 297 306 307 311 312 313 315 319 321 322 326 327 328 329 330 331 335 "
            "336 337 338 340 345 346 347 348 350 352 359 377 378 379 384 425 434 441 451 "
            "470 494 497 501 502 521 522 523 524 525 530 532 538 539 548 565 601 602 611 "
            "613 614 639 640 643 644 649 650 652 668 676 693 706 732 749 759 760 776 780 "
            "798 807 829 830 862 863 915 916 917 918 921 922 923 925 939 940 941 942 943 "
            "1004 1021 1173 1204 1236 1240 1275 1321 1327 1333 1336 1390 1391"
        ),
        LOGIC: (
            "128 129 131 135 170 190 191 193 369 457 476 480 481 482 483 484 486 570 571 "
            "595 597 617 628 670 682 697 704 758 783 835 839 1023 1025 1077"
        ),
        LEAK: "400 401 403 404 459 762 763 770 771 772 773 775 1091",
        CONCURRENCY: "362 364 366 367 412 413 414 543 567 609 662 663 667 764 765 820 821 833",
        ERRORS: "248 252 253 390 391 392 394 395 396 397 460 544 584 703 754 755 756",
        DATA: "194 195 196 197 354 374 375 471 681 1339",
        PERFORMANCE: "407 1042 1043 1046 1049 1050 1060 1063 1067 1072 1073 1089 1094",
        MAINTAINABILITY: (
            "398 477 546 561 563 1041 1061 1064 1065 1074 1075 1078 1080 1083 1085 1086 "
            "1087 1090 1092 1093 1095 1106 1107 1108 1109 1113 1114 1115 1117 1119 1121 "
            "1122 1123 1124 1125 1126 1127 1164"
        ),
        DOCUMENTATION: "1053 1059 1110 1111 1112 1116 1118",
    }
)

TAG_CATEGORIES: dict[str, str] = {
    "security": SECURITY,
    "vulnerability": SECURITY,
    "correctness": LOGIC,
    "reliability": LOGIC,
    "bug": LOGIC,
    "bug risk": LOGIC,
    "resource-leak": LEAK,
    "resources": LEAK,
    "concurrency": CONCURRENCY,
    "thread-safety": CONCURRENCY,
    "error-handling": ERRORS,
    "exceptions": ERRORS,
    "data-integrity": DATA,
    "performance": PERFORMANCE,
    "efficiency": PERFORMANCE,
    "maintainability": MAINTAINABILITY,
    "readability": MAINTAINABILITY,
    "useless-code": MAINTAINABILITY,
    "complexity": MAINTAINABILITY,
    "duplication": MAINTAINABILITY,
    "clarity": MAINTAINABILITY,
    "style": MAINTAINABILITY,
    "best-practice": MAINTAINABILITY,
    "documentation": DOCUMENTATION,
    "testing": TESTING,
    "test": TESTING,
}

# Dotted rule ids (Semgrep `lang.correctness.x`, Checkstyle `checks.javadoc.X`) carry their
# kind as a path segment; the first segment found in this table decides.
SEGMENT_CATEGORIES: dict[str, str] = {
    "correctness": LOGIC,
    "performance": PERFORMANCE,
    "caching": PERFORMANCE,
    "best-practice": MAINTAINABILITY,
    "best-practices": MAINTAINABILITY,
    "maintainability": MAINTAINABILITY,
    "compatibility": MAINTAINABILITY,
    "style": MAINTAINABILITY,
    "naming": MAINTAINABILITY,
    "whitespace": MAINTAINABILITY,
    "imports": MAINTAINABILITY,
    "sizes": MAINTAINABILITY,
    "design": MAINTAINABILITY,
    "coding": MAINTAINABILITY,
    "blocks": MAINTAINABILITY,
    "metrics": MAINTAINABILITY,
    "modifier": MAINTAINABILITY,
    "javadoc": DOCUMENTATION,
    "concurrency": CONCURRENCY,
}

# Bandit's plugins (Bxxx) and Ruff's flake8-bandit ports (Sxxx) share numbers; all are
# security checks except the two that flag swallowed exceptions.
BANDIT_EXCEPTIONS: dict[int, str] = {110: ERRORS, 112: ERRORS}

# Ruff's preview output names rules instead of coding them; the flake8-bandit names map
# back to their codes (from `ruff rule --all`, Ruff 0.17.6) so S324 and its name agree.
RUFF_BANDIT_NAMES: dict[str, int] = _name_codes(
    """
    101:assert 102:exec-builtin 103:bad-file-permissions 104:hardcoded-bind-all-interfaces
    105:hardcoded-password-string 106:hardcoded-password-func-arg
    107:hardcoded-password-default 108:hardcoded-temp-file 110:try-except-pass
    112:try-except-continue 113:request-without-timeout 201:flask-debug-true
    202:tarfile-unsafe-members 301:suspicious-pickle-usage 302:suspicious-marshal-usage
    303:suspicious-insecure-hash-usage 304:suspicious-insecure-cipher-usage
    305:suspicious-insecure-cipher-mode-usage 306:suspicious-mktemp-usage
    307:suspicious-eval-usage 308:suspicious-mark-safe-usage 310:suspicious-url-open-usage
    311:suspicious-non-cryptographic-random-usage 312:suspicious-telnet-usage
    313:suspicious-xmlc-element-tree-usage 314:suspicious-xml-element-tree-usage
    315:suspicious-xml-expat-reader-usage 316:suspicious-xml-expat-builder-usage
    317:suspicious-xml-sax-usage 318:suspicious-xml-mini-dom-usage
    319:suspicious-xml-pull-dom-usage 320:suspicious-xmle-tree-usage
    321:suspicious-ftp-lib-usage 323:suspicious-unverified-context-usage
    324:hashlib-insecure-hash-function 401:suspicious-telnetlib-import
    402:suspicious-ftplib-import 403:suspicious-pickle-import 404:suspicious-subprocess-import
    405:suspicious-xml-etree-import 406:suspicious-xml-sax-import
    407:suspicious-xml-expat-import 408:suspicious-xml-minidom-import
    409:suspicious-xml-pulldom-import 410:suspicious-lxml-import 411:suspicious-xmlrpc-import
    412:suspicious-httpoxy-import 413:suspicious-pycrypto-import 415:suspicious-pyghmi-import
    501:request-with-no-cert-validation 502:ssl-insecure-version 503:ssl-with-bad-defaults
    504:ssl-with-no-version 505:weak-cryptographic-key 506:unsafe-yaml-load
    507:ssh-no-host-key-verification 508:snmp-insecure-version 509:snmp-weak-cryptography
    601:paramiko-call 602:subprocess-popen-with-shell-equals-true
    603:subprocess-without-shell-equals-true 604:call-with-shell-equals-true
    605:start-process-with-a-shell 606:start-process-with-no-shell
    607:start-process-with-partial-path 608:hardcoded-sql-expression
    609:unix-command-wildcard-injection 610:django-extra 611:django-raw-sql
    612:logging-config-insecure-listen 701:jinja2-autoescape-false 702:mako-templates
    704:unsafe-markup-use
    """
)

# ESLint plugin rules are namespaced `plugin/rule`; these plugins say what they check.
ESLINT_PLUGINS: dict[str, str] = {
    "security": SECURITY,
    "security-node": SECURITY,
    "no-unsanitized": SECURITY,
    "xss": SECURITY,
    "jsdoc": DOCUMENTATION,
    "jest": TESTING,
    "vitest": TESTING,
    "mocha": TESTING,
    "testing-library": TESTING,
    "promise": ERRORS,
}

# ESLint's core rules that have a clear category (its plugins are namespaced above).
ESLINT_CORE: dict[str, str] = {
    "no-eval": SECURITY,
    "no-implied-eval": SECURITY,
    "no-new-func": SECURITY,
    "no-script-url": SECURITY,
    "no-unused-vars": MAINTAINABILITY,
    "no-unreachable": MAINTAINABILITY,
    "no-undef": LOGIC,
    "eqeqeq": LOGIC,
    "no-self-compare": LOGIC,
    "no-dupe-keys": LOGIC,
    "no-empty": ERRORS,
    "no-async-promise-executor": CONCURRENCY,
    "require-atomic-updates": CONCURRENCY,
}

# Tools whose every rule is a security check.
SECURITY_TOOLS = frozenset(["njsscan", "nodejsscan", "gosec", "brakeman", "bearer", "trivy"])

# CWEs that mean "a resource is never released": nothing else reads that way, so they win
# over a `security` tag (Semgrep tags every rule that has a CWE `security`).
RELEASE_CWES = frozenset([401, 404, 459, 762, 763, 772, 773, 775, 1091])

# Single linter rules whose prefix's category does not fit them (Pyflakes' F is mostly
# real bugs, but an unused import is clutter).
LINTER_RULES: dict[str, str] = {
    "F401": MAINTAINABILITY,
    "F403": MAINTAINABILITY,
    "F405": MAINTAINABILITY,
    "F541": MAINTAINABILITY,
    "F811": MAINTAINABILITY,
    "F841": MAINTAINABILITY,
}

# Ruff and flake8 code prefixes (letters before the number), for tools that use them.
LINTER_TOOLS = frozenset(["ruff", "flake8"])
LINTER_PREFIXES: dict[str, str] = {
    "B": LOGIC,
    "F": LOGIC,
    "PLE": LOGIC,
    "PLW": LOGIC,
    "E": MAINTAINABILITY,
    "W": MAINTAINABILITY,
    "C": MAINTAINABILITY,
    "N": MAINTAINABILITY,
    "UP": MAINTAINABILITY,
    "SIM": MAINTAINABILITY,
    "PLR": MAINTAINABILITY,
    "PLC": MAINTAINABILITY,
    "RET": MAINTAINABILITY,
    "ARG": MAINTAINABILITY,
    "ERA": MAINTAINABILITY,
    "I": MAINTAINABILITY,
    "D": DOCUMENTATION,
    "DOC": DOCUMENTATION,
    "PERF": PERFORMANCE,
    "ASYNC": CONCURRENCY,
    "BLE": ERRORS,
    "TRY": ERRORS,
    "RSE": ERRORS,
    "PT": TESTING,
}

TOOL_ALIASES = {
    "semgrep oss": "semgrep",
    "semgrep pro": "semgrep",
    "semgrep pro engine": "semgrep",
    "semgrep code": "semgrep",
    "nodejsscan": "njsscan",
}


# Categories whose findings are at most medium severity when a linter reports them: SARIF's
# `error` level says a rule was violated, not that an unused import is a high-impact bug.
HOUSEKEEPING = frozenset(["maintainability", "documentation"])

# CodeQL query ids (`js/xss`) look like ESLint plugin rules; its tags decide instead.
QUERY_ID_TOOLS = frozenset(["codeql"])
