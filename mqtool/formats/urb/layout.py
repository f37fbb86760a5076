"""Adabas Event Replicator URB messages (seed 001; spec ``urb.md``).

A message is a 64-byte URBH followed by elements that each start with a 4-character
eyecatcher and a fullword length: input requests (URBI, with selection data or an ISN list),
status messages (URBS), data messages (URBT, URBR, URBD with the record image, URBE),
continuations (URBC), ADARPE extract headers (URBU) and global format field tables (URBF
with its URBGs). Each DSECT is declared once below, per variant: the character set (EBCDIC
or ASCII) comes from the URBH eyecatcher, the byte order from URBHBORD, independently, and
both can be forced. Elements are walked by their own length fields (the seed's URBT is 112
bytes, later releases send 128); messages back to back are walked by URBHLENT.

Decoding never stops silently: anomalies are errors (decoding could not go on, exit 2) or
problems (decoded, but not as the format says), each with the field path and byte offset.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

from construct import Renamed

from mqtool.codepages import codec_name
from mqtool.compose import (
    At,
    Chain,
    Count,
    Envelope,
    Hook,
    Nest,
    Own,
    Record,
    Repeat,
    Switch,
    Trailing,
    When,
    computed,
)
from mqtool.compose.walk import Plan
from mqtool.formats.urb.meanings import (
    CONTINUED,
    DELETE_TO_UPDATE,
    FIELD_FLAG_BITS,
    FIELD_TYPE_BITS,
    GFFT_FLAGS,
    GFFT_FORMATS,
    IMAGE_TYPES,
    INITIAL_STATE,
    ORIGINS,
    PRIOR_TRANSACTION,
    RECORD_TYPES,
    RESENT,
    SORTED,
    STATUS,
    UPDATE_CONVERTED,
    UTILITY_FUNCTIONS,
    arc_meaning,
    bits_meaning,
    ecs_meaning,
    request_type_meaning,
    subcode_meaning,
)
from mqtool.layout import Hex, Inferred, Layout, Means, Reserved, Variant, dsect

FORMAT = "urb"

# Equates (nominal element lengths)
URBHL, URBIL, URBSL, URBTL, URBTL_112, URBRL, URBDL, URBEL, URBCL, URBUL, URBFL, URBGL = (
    64, 96, 128, 128, 112, 64, 32, 32, 48, 80, 112, 64)
URBSUL = 32
ISN_LEN, ISN_RANGE_LEN = 4, 12
ISN_RANGE = 0xFFFFFFFF  # range indicator (S4 -1)
URBHVER1 = "01"

EBCDIC_URBH = bytes.fromhex("E4D9C2C8")
ASCII_URBH = b"URBH"
BORD_BIG, BORD_LITTLE = b"\x00\x01", b"\x01\x00"
DEFAULT_EBCDIC, DEFAULT_ASCII = "cp037", "latin-1"


# --------------------------------------------------------------------------- declarations


def _urbh(v: Variant) -> Layout:
    return dsect(
        "URBH",
        "urbheye" / v.eye("URBH"),
        "urbhlen" / v.S4,
        "urbhvers" / v.text(2),
        "urbhbord" / v.hexint(2),  # the value 1 in the message's byte order
        "urbhlent" / v.U4,
        "urbhmsnr" / v.U4,
        "urbhtime" / v.stck(),
        "urbhrpid" / v.U2,
        "urbhrpni" / v.U2,
        "urbhname" / v.text(8),
        "urbhres" / Reserved(24),
    )


def _urbi(v: Variant) -> Layout:
    return dsect(
        "URBI",
        "urbieye" / v.eye("URBI"),
        "urbilen" / v.S4,
        "urbilenh" / v.S4,
        "urbilend" / v.S4,
        "urbirtok" / v.text(8),
        "urbirnam" / v.text(8),
        "urbirt" / Means(v.text(4), request_type_meaning),
        "urbidbid" / v.U2,
        "urbifnr" / v.U2,
        "urbiinam" / v.text(8),
        "urbisnam" / v.text(8),
        "urbidnam" / v.text(8),
        "urbiacod" / Means(v.U4, ecs_meaning),
        "urbiwcod" / Means(v.U4, ecs_meaning),
        "urbiarc" / Means(v.hexint(1), arc_meaning),
        "urbires1" / Reserved(3),
        "urbitsnr" / v.U4,
        "urbires2" / Reserved(16),
    )


def _isn(v: Variant) -> Layout:
    """One single ISN of the ISN list after an INST URBI."""
    return dsect("ISN", "urbiisn" / v.U4)


def _isn_range(v: Variant) -> Layout:
    """One ISN range of the ISN list: X'FFFFFFFF', first ISN, last ISN."""
    return dsect(
        "ISNRANGE",
        "urbiirange" / Means(v.hexint(4), {ISN_RANGE: "range"}),
        "urbiisn1" / v.U4,
        "urbiisn2" / v.U4,
    )


def _urbs(v: Variant) -> Layout:
    return dsect(
        "URBS",
        "urbseye" / v.eye("URBS"),
        "urbslen" / v.S4,
        "urbsrtok" / v.text(8),
        "urbsrt" / Means(v.text(4), request_type_meaning),
        "urbsst" / Means(v.text(4), STATUS),
        "urbstime" / v.stck(),
        "urbsrsp" / v.U4,
        "urbssubc" / Means(v.U4, subcode_meaning("urbsrsp")),
        "urbserri" / v.text(8),
        "urbsinam" / v.text(8),
        "urbssnam" / v.text(8),
        "urbsdnam" / v.text(8),
        "urbsptim" / v.stck(),
        "urbsttim" / v.stck(),
        "urbstsnr" / v.U4,
        "urbsdbid" / v.U2,
        "urbsfnr" / v.U2,
        "urbslenh" / v.S4,
        "urbslend" / v.S4,
        "urbsutok" / v.U2,
        "urbsorig" / Means(v.text(1), ORIGINS),
        "urbsres1" / Reserved(5),
        "urbsiqnm" / v.text(8),
        "urbsres2" / Reserved(8),
    )


def _urbsu(v: Variant) -> Layout:
    """Adabas utility detail header in the urbsdata of an AUTI status (§4.4.1)."""
    return dsect(
        "URBSU",
        "urbsueye" / v.text(6),
        "urbsutyp" / Means(v.hexint(1), UTILITY_FUNCTIONS),
        "urbsures" / Reserved(25),
    )


SWITCH = {0: "on", 1: "off"}


# The function detail after the 32-byte URBSU header, by ``urbsutyp`` (§4.4.1: the fields
# are the library's; that they follow the header is INFERRED). X'48', X'57', X'58', X'59'
# declare none.
URBSU_DETAILS: dict[int, Callable[[Variant], tuple[Renamed, ...]]] = {
    0x41: lambda v: ("urbsufnm" / v.text(2), "urbsuflen" / v.S4),
    0x44: lambda v: ("urbsusts" / Means(v.text(2), {"S": "FDT kept"}), "urbsuafnr" / v.U2),
    0x4A: lambda v: ("urbsufnm" / v.text(2),),
    0x4B: lambda v: ("urbsunnam" / v.text(16),),
    0x4E: lambda v: ("urbsuswit" / v.text(4),),
    0x4F: lambda v: ("urbsuswit" / v.text(4),),
    0x55: lambda v: ("urbsuapad" / v.U2, "urbsudpad" / v.U2, "urbsumrec" / v.U4,
                     "urbsuuisa" / v.U2, "urbsunisa" / v.U2, "urbsudssa" / v.U2,
                     "urbsupgmr" / v.text(1), "urbsurplu" / v.text(1)),
    0x5C: lambda v: ("urbsufnm" / v.text(2), "urbsunfmt" / v.text(1), "urbsures3" / Reserved(1)),
    0x68: lambda v: ("urbsuswon" / Means(v.S4, SWITCH),),
    0x69: lambda v: ("urbsuswon" / Means(v.S4, SWITCH),),
    0x70: lambda v: ("urbsudnm" / v.text(2), "urbsursn" / v.U1, "urbsures4" / Reserved(5)),
    0x78: lambda v: ("urbsumupx" / v.S4,),
}


def _urbsu_details(v: Variant) -> dict[int, Layout]:
    """The URBSU function details of one variant (``URBSU_DETAILS``), every field inferred."""
    return {t: dsect("URBSUD", *(f if isinstance(f.subcon, Reserved) else f.name / Inferred(f.subcon)
                                 for f in fields(v)))
            for t, fields in URBSU_DETAILS.items()}


def _urbt(v: Variant, length: int = URBTL) -> Layout:
    """URBT of either generation: 112 bytes (the seed's) or 128 (16 reserved bytes more)."""
    fields = [
        "urbteye" / v.eye("URBT"),
        "urbtlen" / v.S4,
        "urbtsnam" / v.text(8),
        "urbttsnr" / v.U4,
        "urbtrcnt" / v.U4,
        "urbtttim" / v.stck(),
        "urbtptim" / v.stck(),
        "urbtdbid" / v.U2,
        "urbtnuci" / v.U2,
        "urbtguid" / Hex(28),
        "urbtrpid" / v.U2,
        "urbtrpni" / v.U2,
        "urbtusrv" / v.text(2),
        "urbtrsnd" / Means(v.text(1), RESENT),
        "urbtinst" / Means(v.text(1), INITIAL_STATE),
        "urbtrtok" / v.text(8),
        "urbtcont" / Means(v.text(1), CONTINUED),
        "urbtarc" / Means(v.hexint(1), arc_meaning),
        "urbtptrn" / Means(v.text(1), PRIOR_TRANSACTION),
        "urbtsort" / Means(v.text(1), SORTED),
        "urbtacod" / Means(v.U4, ecs_meaning),
        "urbtwcod" / Means(v.U4, ecs_meaning),
        "urbtutok" / v.U2,
        "urbtorig" / Means(v.text(1), ORIGINS),
        "urbtres1" / Reserved(1),
        "urbtsuid" / v.text(8),
    ]
    if length == URBTL:
        fields.append("urbtres2" / Reserved(16))
    return dsect("URBT", *fields)


def _urbr(v: Variant) -> Layout:
    return dsect(
        "URBR",
        "urbreye" / v.eye("URBR"),
        "urbrlen" / v.S4,
        "urbrrsnr" / v.U4,
        "urbrdcnt" / v.S2,
        "urbrfnr" / v.U2,
        "urbrisn" / v.U4,
        "urbrtime" / v.stck(),
        "urbrtyp" / Means(v.text(1), RECORD_TYPES),
        "urbrrsnd" / Means(v.text(1), RESENT),
        "urbrrsp" / v.U2,
        "urbrsubc" / Means(v.U4, subcode_meaning("urbrrsp")),
        "urbrerrc" / v.text(8),
        "urbrdcu" / Means(v.text(1), DELETE_TO_UPDATE),
        "urbruc" / Means(v.text(1), UPDATE_CONVERTED),
        "urbrres" / Reserved(18),
    )


def _urbd(v: Variant) -> Layout:
    return dsect(
        "URBD",
        "urbdeye" / v.eye("URBD"),
        "urbdlen" / v.S4,
        "urbdlenh" / v.S4,
        "urbdlend" / v.S4,
        "urbddsnr" / v.U4,
        "urbdtyp" / Means(v.text(1), IMAGE_TYPES),
        "urbdres" / Reserved(11),
    )


def _urbe(v: Variant) -> Layout:
    return dsect(
        "URBE",
        "urbeeye" / v.eye("URBE"),
        "urbelen" / v.S4,
        "urbesnam" / v.text(8),
        "urbetsnr" / v.U4,
        "urberes" / Reserved(12),
    )


def _urbc(v: Variant) -> Layout:
    return dsect(
        "URBC",
        "urbceye" / v.eye("URBC"),
        "urbclen" / v.S4,
        "urbcsnam" / v.text(8),
        "urbctsnr" / v.U4,
        "urbcrsnr" / v.U4,
        "urbcdsnr" / v.U4,
        "urbccont" / Means(v.text(1), CONTINUED),
        "urbcres" / Reserved(19),
    )


def _urbu(v: Variant) -> Layout:
    return dsect(
        "URBU",
        "urbueye" / v.eye("URBU"),
        "urbulen" / v.S4,
        "urbuvers" / v.text(2),
        "urbuname" / v.text(8),
        "urbutime" / v.stck(),
        "urbudist" / v.text(22),
        "urbures" / Reserved(32),
    )


def _urbf(v: Variant) -> Layout:
    return dsect(
        "URBF",
        "urbfeye" / v.eye("URBF"),
        "urbflen" / v.U4,
        "urbflenh" / v.U4,
        "urbflend" / v.U4,
        "urbfvers" / v.text(2),
        "urbffnre" / v.text(5),
        "urbfflag" / Means(v.hexint(1), bits_meaning(GFFT_FLAGS)),
        "urbfgfid" / v.text(8),
        "urbfdbid" / v.U4,
        "urbffnr" / v.U2,
        "urbffnml" / v.U2,
        "urbffnam" / v.text(32),
        "urbftim1" / v.stck(),
        "urbfcntg" / v.U2,
        "urbfleng" / v.U2,
        "urbftim2" / v.stck(),
        "urbfres" / Reserved(20),
    )


def _urbg(v: Variant) -> Layout:
    return dsect(
        "URBG",
        "urbgidx" / v.U2,
        "urbgfid" / v.text(2),
        "urbgffmt" / Means(v.hexint(1), GFFT_FORMATS),
        "urbgtype" / Means(v.hexint(1), bits_meaning(FIELD_TYPE_BITS)),
        "urbgflen" / v.U2,
        "urbgfprc" / v.U2,
        "urbgflag" / Means(v.hexint(1), bits_meaning(FIELD_FLAG_BITS)),
        "urbgres1" / Reserved(1),
        "urbgfrno" / v.U2,
        "urbgfrfm" / v.U2,
        "urbgfono" / v.U2,
        "urbgfofm" / v.U2,
        "urbgfnml" / v.U2,
        "urbgfnam" / v.text(32),
        "urbgfgrp" / v.text(2),
        "urbgfmtx" / v.text(2),
        "urbgfrpn" / v.text(2),
        "urbgffon" / v.text(2),
        "urbgres2" / Reserved(2),
    )


def _element(v: Variant) -> Layout:
    """What every element starts with; shows elements whose eyecatcher is unknown."""
    return dsect("ELEMENT", "eye" / Hex(4), "len" / v.S4)


@dataclass(frozen=True)
class Urb:
    """Every URB layout of one variant (byte order x code page)."""

    variant: Variant
    URBH: Layout
    URBI: Layout
    ISN: Layout
    ISNRANGE: Layout
    URBS: Layout
    URBSU: Layout
    URBSUD: dict[int, Layout]  # URBSU function details by urbsutyp
    URBT: Layout  # 128 bytes
    URBT112: Layout  # the seed's generation
    URBR: Layout
    URBD: Layout
    URBE: Layout
    URBC: Layout
    URBU: Layout
    URBF: Layout
    URBG: Layout
    ELEMENT: Layout

    def layout(self, name: str) -> Layout:
        """A layout by the name the composition uses (``URBSUD4B``: the detail of X'4B')."""
        if name.startswith(DETAIL):
            return self.URBSUD[int(name[len(DETAIL):], 16)]
        layout = getattr(self, name)
        assert isinstance(layout, Layout)
        return layout


DETAIL = "URBSUD"


def codepage_of(name: object) -> str:
    """The codec of a code page named in user input; LookupError for anything that is not
    one (not text, NUL characters, unknown names)."""
    if not isinstance(name, str) or "\x00" in name:
        raise LookupError(f"unknown code page {name!r}")
    try:
        return codec_name(name)
    except ValueError:
        raise LookupError(f"unknown code page {name!r}") from None


@lru_cache(maxsize=32)
def layouts(big: bool = True, codepage: str = DEFAULT_EBCDIC) -> Urb:
    """The layouts of one variant (cached; ``codepage`` any name ``codec_name`` takes)."""
    v = Variant(big, codec_name(codepage))
    return Urb(v, _urbh(v), _urbi(v), _isn(v), _isn_range(v), _urbs(v), _urbsu(v), _urbsu_details(v),
               _urbt(v, URBTL),
               _urbt(v, URBTL_112), _urbr(v), _urbd(v), _urbe(v), _urbc(v), _urbu(v), _urbf(v),
               _urbg(v), _element(v))


# --------------------------------------------------------------------------- composition
#
# How the declared records compose into a message, in the words of ``mqtool.compose``: the
# span walker and the fast JSON / listing paths (decode.py, fastjson.py, fastlist.py, one
# walk), the columnar walker (bulk.py), the builder (compose.py, build.py) and the docs
# (catalog.py) read these declarations.

ISN_LIST = Repeat("isn", Switch(At("ISNRANGE", "urbiirange"), {ISN_RANGE: "ISNRANGE"}, default="ISN"),
                  gather="ISNLIST", title="ISN list at offset X'{offset:04X}' ({length} bytes)")
URBG_TABLE = Repeat("urbg", "URBG", count="urbfcntg", size="urbfleng",
                    title="URBG {index} at offset X'{offset:04X}'")
UTILITY_DETAIL = When("urbsst", ("AUTI",), Nest(
    "urbsu", "URBSU", rest="detail", title="URBSU utility detail at offset X'{offset:04X}'",
    then=Switch(Own("urbsutyp"), {t: f"{DETAIL}{t:02X}" for t in URBSU_DETAILS},
                name="detail",
                title="URBSU function detail (X'{key:02X}' {meaning}) at offset X'{offset:04X}'")))

RECORDS = (
    Record("URBI", "urbilen", ("URBI",), fixed=False, hooks=("urbi",),
           trailing=Trailing("urbidata", "urbilenh", "urbilend", content=Hook("urbi_data", ISN_LIST),
                             codepage="urbi_codepage")),
    Record("URBS", "urbslen", ("URBS",), fixed=False,
           trailing=Trailing("urbsdata", "urbslenh", "urbslend", tolerated=(0,), content=UTILITY_DETAIL)),
    Record("URBT", "urbtlen", ("URBT112", "URBT"), hooks=("urbt",)),
    Record("URBR", "urbrlen", ("URBR",)),
    Record("URBD", "urbdlen", ("URBD",), fixed=False,
           trailing=Trailing("urbddata", "urbdlenh", "urbdlend", codepage="urbd_codepage",
                             kept_empty=True)),
    Record("URBE", "urbelen", ("URBE",)),
    Record("URBC", "urbclen", ("URBC",)),
    Record("URBU", "urbulen", ("URBU",)),
    Record("URBF", "urbflen", ("URBF",), fixed=False,
           trailing=Trailing("urbgs", "urbflenh", "urbflend", content=URBG_TABLE)),
)

# the counts parents keep, in the order a parent closes them: the inner count first
COUNTS = (
    Count("urbrdcnt", "URBR", "URBD", ("URBT", "URBE"), words="urbrdcnt says {want} URBDs, {n} follow"),
    Count("urbtrcnt", "URBT", "URBR", ("URBE",), continued="urbtcont", breaks=("URBC",),
          words="urbtrcnt says {want} records, the transaction holds {n}"),
)

CHAIN = Chain(key=At("ELEMENT", "eye"), length=At("ELEMENT", "len"),
              records={r.type: r for r in RECORDS}, unknown="ELEMENT", counts=COUNTS,
              finish="urb_finish")
ADARPE_CHAIN = replace(CHAIN, stops=("URBH",))  # elements without a URBH: a URBH starts the next
MESSAGE = Envelope("URBH", size="urbhlen", total="urbhlent", chain=CHAIN,
                   constants={"urbhvers": URBHVER1, "urbhbord": 1}, unit="message")

ELEMENTS = CHAIN.records
ELEMENT_TYPES = tuple(ELEMENTS)
HEADER_CONSTANTS = MESSAGE.constants
HEADER_LENGTH, MESSAGE_LENGTH = MESSAGE.size, MESSAGE.total
COMPUTED = computed(MESSAGE)


# where the walkers peek before they know the variant: offsets and sizes from the declarations
_URBH0, _ELEMENT0 = _urbh(Variant()), _element(Variant())
URBHLEN_AT, URBHVERS_AT, URBHBORD_AT, URBHLENT_AT = (
    _URBH0.offset_of(n) for n in ("urbhlen", "urbhvers", "urbhbord", "urbhlent"))
EYE_LEN = _URBH0.field("urbheye").size or 0
BORD_LEN = _URBH0.field("urbhbord").size or 0
WORD = _URBH0.field("urbhlent").size or 0  # a fullword length field
HEADER_PEEK = URBHLENT_AT + WORD  # the URBH bytes the header walk reads
ELEMENT_LEN_AT = _ELEMENT0.offset_of("len")  # every element: eyecatcher, then its length
ELEMENT_HEAD = _ELEMENT0.size or 0  # 8: the least an element can be


CODEPAGES = (DEFAULT_EBCDIC, DEFAULT_ASCII)  # charset index 0 / 1 of the walkers


def _header_prefix(cs: int, big: bool) -> bytes:
    """The URBH bytes before URBHLENT every regular header has: eyecatcher, URBHLEN (the
    URBH size), URBHVERS, URBHBORD (1) — built from the declaration."""
    urbh = _urbh(Variant(big, CODEPAGES[cs]))
    return urbh.build({HEADER_LENGTH: urbh.size, **HEADER_CONSTANTS})[:URBHLENT_AT]


# regular header prefix -> (charset index, big-endian)
HEADER_PREFIXES = {_header_prefix(cs, big): (cs, big) for cs in (0, 1) for big in (True, False)}


@lru_cache(maxsize=64)
def plan(big: bool = True, codepage: str = DEFAULT_EBCDIC, chain: Chain = CHAIN) -> Plan:
    """The element chain resolved for one variant: what every walker reads."""
    lay = layouts(big, codepage)
    return Plan(chain, lay.layout, lay.variant.codepage)


# --------------------------------------------------------------------------- detection


def charset_of(eye: bytes) -> str | None:
    """``ebcdic`` / ``ascii`` from a URBH eyecatcher, None for anything else."""
    if eye == EBCDIC_URBH:
        return "ebcdic"
    if eye == ASCII_URBH:
        return "ascii"
    return None


def _element_charset(eye: bytes) -> str | None:
    """Character set of a URB element eyecatcher other than URBH (ADARPE extracts)."""
    for cs, cp in (("ebcdic", DEFAULT_EBCDIC), ("ascii", DEFAULT_ASCII)):
        if eye.decode(cp) in ELEMENT_TYPES:  # both code pages decode every byte
            return cs
    return None


def byte_order_of(bord: bytes) -> str | None:
    return {BORD_BIG: "big", BORD_LITTLE: "little"}.get(bord)


class VariantChoice:
    """The code page and byte order a message is built in, from a request's ``encoding``
    (``ebcdic``/``ascii``), ``codepage`` and ``byte_order`` fields (a mixin of the request
    dataclasses)."""

    encoding: str | None
    codepage: str | None
    byte_order: str

    @property
    def cp(self) -> str:
        if self.codepage:
            return codepage_of(self.codepage)
        return DEFAULT_ASCII if self.encoding == "ascii" else DEFAULT_EBCDIC

    @property
    def big(self) -> bool:
        return self.byte_order == "big"
