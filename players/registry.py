"""Registry writes and rules shared by every importer (FIDE lists, TRF files): federation codes, clean names."""

import re
from collections.abc import Iterable

from players.models import Club, Federation

# FIDE member federations (and FID, players under FIDE's flag), as written on FIDE's lists and in TRF files.
FIDE_FEDERATION_CODES = frozenset(
    """
    AFG ALB ALG AND ANG ANT ARG ARM ARU AUS AUT AZE BAH BAN BAR BDI BEL BER BHU BIH BLR BOL BOT BRA BRN BRU
    BUL BUR CAF CAM CAN CAY CHA CHI CHN CIV CMR COD COL COM CPV CRC CRO CUB CYP CZE DEN DJI DMA DOM ECU EGY
    ENG ERI ESA ESP EST ETH FAI FID FIJ FIN FRA GAB GAM GCI GEO GEQ GER GHA GRE GRN GUA GUM GUY HAI HKG HON
    HUN INA IND IRI IRL IRQ ISL ISR ISV ITA IVB JAM JCI JOR JPN KAZ KEN KGZ KOR KOS KSA KUW LAO LAT LBA LBN
    LBR LCA LES LIE LTU LUX MAC MAD MAR MAS MAW MDA MDV MEX MGL MKD MLI MLT MNC MNE MOZ MRI MTN MYA NAM NCA
    NED NEP NGR NIG NOR NRU NZL OMA PAK PAN PAR PER PHI PLE PLW PNG POL POR PUR QAT ROU RSA RUS RWA SCO SEN
    SEY SGP SKN SLE SLO SMR SOL SOM SRB SRI SSD STP SUD SUI SUR SVK SWE SWZ SYR TAN TGA TJK TKM TLS TOG TPE
    TTO TUN TUR UAE UGA UKR URU USA UZB VAN VEN VIE VIN WLS YEM ZAM ZIM
    """.split()  # noqa: SIM905  (the codes as FIDE prints them: easier to check than 200 quoted strings)
)
_CODE = re.compile(r"[A-Z]{3}")
# C0 control characters and DEL: PostgreSQL refuses NUL in text, and none belongs in a name.
CONTROL_CHARACTERS = dict.fromkeys((*range(0, 32), 127))


def is_fide_federation_code(code: str) -> bool:
    """Three upper-case letters FIDE uses for a federation (not, e.g., an Irish club code such as KIL)."""
    return code in FIDE_FEDERATION_CODES


def federations_ensure(codes: Iterable[str], known: set[str] | None = None) -> set[str]:
    """Create the Federation rows missing for ``codes`` (three upper-case letters each); returns them.

    ``known``: codes already known to exist (updated in place), so a caller working in batches asks once.
    """
    wanted = {code for code in codes if code and _CODE.fullmatch(code)}
    if known is not None:
        wanted -= known
    if not wanted:
        return set()
    existing = set(Federation.objects.filter(code__in=wanted).values_list("code", flat=True))
    missing = wanted - existing
    if missing:
        Federation.objects.bulk_create([Federation(code=code) for code in sorted(missing)], ignore_conflicts=True)
    if known is not None:
        known |= wanted
    return missing


def clubs_ensure(codes: Iterable[str], federation: str | None = None) -> dict[str, Club]:
    """The clubs of ``codes`` (as files write them, e.g. KIL) under ``federation``, created when missing
    (named by their code until an official names them in the admin): two queries at most."""
    wanted = {code.strip()[:20] for code in codes if code and code.strip()}
    if not wanted:
        return {}
    clubs = {club.code: club for club in Club.objects.filter(federation_id=federation, code__in=wanted)}
    missing = [Club(name=code, code=code, federation_id=federation) for code in sorted(wanted - set(clubs))]
    for club in Club.objects.bulk_create(missing):
        clubs[club.code] = club
    return clubs
