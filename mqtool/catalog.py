"""Every format's declarations, for ``mqtool layouts`` and the generated docs.

Each entry takes its layouts from the format's own factories for the default variant
(``urb.layout.layouts()``, ``csq1logp.layout.layouts()``, ...) and adds what a reader needs
around them: a title per record, the other variants, notes. No offset, size or type is
written here: those are read from the ``Layout`` objects by ``mqtool.render.layouts``. How
records compose is the format's ``mqtool.compose`` declaration (``composition=``), read by
``render.layouts.composed`` (URB); formats not yet declared in that vocabulary still say
their framing and repeated members here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

from mqtool.errors import InputError
from mqtool.render.layouts import Elements, FormatDoc, Frame, Member, Part, RecordDoc, composed

# What the documents say each field holds, in a few words (names, offsets and sizes are the
# declarations'; a test checks every name here is a declared field).
URBH_TEXT = {
    "urbhlen": "length of the URBH (URBHL, 64)",
    "urbhvers": "version, '01'",
    "urbhbord": "the value 1 in the sender's byte order: X'0001' big-, X'0100' little-endian",
    "urbhlent": "total message length: the URBH and every element after it",
    "urbhmsnr": "message sequence number per destination",
    "urbhtime": "when the message was sent",
    "urbhrpid": "target ID (DBID) of the sending Event Replicator Server",
    "urbhrpni": "nucleus ID of the sending server",
    "urbhname": "sender name; 'REPTOR' when the server sends",
}
URBI_TEXT = {
    "urbilen": "length of the element (URBIL, 96, plus the data after it)",
    "urbilenh": "length of the fixed part",
    "urbilend": "length of the data after the fixed part (selection data or ISN list)",
    "urbirtok": "request token: lets a client recognise the answer to each request",
    "urbirnam": "response destination name",
    "urbirt": "request type",
    "urbidbid": "database ID",
    "urbifnr": "file number",
    "urbiinam": "initial-state definition name",
    "urbisnam": "subscription name",
    "urbidnam": "destination name",
    "urbiacod": "alpha (A) field encoding (ECS code page number)",
    "urbiwcod": "wide (W) field encoding (ECS code page number)",
    "urbiarc": "architecture key: byte order, character set, float format",
    "urbitsnr": "transaction sequence number (prior-transaction request)",
}
LOGD_TEXT = {
    "csrecorddate": "approximate time the log was written, yyyy.ddd hh:mm:ss.thm",
    "cstimedelta": "approximate milliseconds from the start of the unit of work, right-justified, "
                   "blank-padded",
    "dtodout": "estimated time the log record was created",
    "csurid": "queue manager's unique identifier of the unit of work that created the record",
    "cscorrelator": "thread correlation identifier",
    "csauth": "authorization identifier (user ID of the unit of work)",
    "dtime": "time the unit of work started",
    "csresource": "resource name",
    "cscnty": "connection type",
    "cscnid": "connection ID of the thread that created the unit of work",
    "csstatus": "unit of work type",
    "ldatalen": "length of the message data (if any)",
    "csqmgrname": "queue manager name",
    "csqueuename": "queue name, for got, put or expired messages",
    "cssqdmcp": "shared queue message key; blank if not a shared queue",
    "csdmcp": "non-shared queue message key; blank if a shared queue",
    "csverb": "activity",
    "cscmitstatus": "status of the unit of work",
    "csshunt": "shunted indicator",
    "cslogrba": "RBA of the log record",
    "csshuntrba": "RBA of the shunted log record",
    "lsegment": "segment number of the data, from 1",
}
MQMD_TEXT = {
    "strucid": "structure identifier", "version": "structure version (1 or 2)",
    "report": "report options", "msgtype": "message type", "expiry": "lifetime in tenths of a "
    "second, -1 unlimited", "feedback": "feedback or reason code", "encoding": "numeric "
    "encoding of the body", "codedcharsetid": "character set of the body (CCSID)",
    "format": "format name of the body", "priority": "priority", "persistence": "persistence",
    "msgid": "message identifier", "correlid": "correlation identifier",
    "backoutcount": "backout counter", "replytoq": "reply-to queue",
    "replytoqmgr": "reply-to queue manager", "useridentifier": "user identifier",
    "accountingtoken": "accounting token", "applidentitydata": "application identity data",
    "putappltype": "type of the putting application", "putapplname": "name of the putting "
    "application", "putdate": "put date, YYYYMMDD (GMT)", "puttime": "put time, HHMMSSTH (GMT)",
    "applorigindata": "application origin data", "groupid": "group identifier",
    "msgseqnumber": "sequence number of the message in its group", "offset": "offset of a "
    "segment in its logical message", "msgflags": "message flags",
    "originallength": "length of the original message",
}


def _urb() -> FormatDoc:
    from mqtool.formats.urb.layout import DEFAULT_EBCDIC, MESSAGE, layouts

    lay = layouts()
    titles = {
        "URBH": "message header: total length, byte order, message number, time, sender",
        "URBI": "input request (STAT, INST, TRAN, OPND, CLSD), selection data or ISN list after it",
        "ISN": "one ISN of the ISN list after an INST request",
        "ISNRANGE": "one ISN range of the ISN list: X'FFFFFFFF', first ISN, last ISN",
        "URBS": "status message (INIT, ERRO, CMPL, SUBS, CLOS, ...), status data after it",
        "URBSU": "Adabas utility detail header in the status data of an AUTI status",
        "URBT": "transaction header (current releases: 128 bytes)",
        "URBT112": "transaction header as the manual's example prints it (112 bytes)",
        "URBR": "record header",
        "URBD": "record data header, the record image after it",
        "URBE": "end of transaction",
        "URBC": "continuation of a transaction in the next message",
        "URBU": "ADARPE extract header",
        "URBF": "global format field table header, its URBG entries after it",
        "URBG": "one field of a global format field table",
        "ELEMENT": "what every element starts with: eyecatcher and length",
    }
    texts = {"URBH": URBH_TEXT, "URBI": URBI_TEXT}
    records = tuple(RecordDoc(name, getattr(lay, name), title, descriptions=texts.get(name, {}))
                    for name, title in titles.items())
    return composed(FormatDoc(
        name="urb", title="Adabas Event Replicator URB messages", big=True, both_orders=True,
        encoding=DEFAULT_EBCDIC,
        variants=("EBCDIC (code page 037; any EBCDIC page with --codepage) or ASCII "
                  "(latin-1): chosen by the URBH eyecatcher",
                  "big- or little-endian: chosen by urbhbord (the value 1 in the message's "
                  "byte order), independently of the character set"),
        notes=("A message is a URBH followed by elements; messages come back to back, each "
               "urbhlent bytes long. Each element's length field says where the next one "
               "starts, so a URBT of 112 bytes (the manual's example) and one of 128 (later "
               "releases) are both read; the `.ksy` decodes a URBT as its first 112 bytes.",
               "Character fields are right-trimmed of blanks only; 1-byte flag fields are "
               "integers; STCK times are UTC."),
        records=records,
        elements=Elements("ELEMENT", {},
                          "one element: eyecatcher, length (of the whole element), then the "
                          "rest of the record that eyecatcher names"),
        top=(Part("messages", "message", repeat="eos"),),
        commands=("decode urb", "build-request urb"),
        composition=MESSAGE, resolve=lay.layout,
    ))


def _csq1logp() -> FormatDoc:
    from mqtool.compose import Nest
    from mqtool.formats.csq1logp.layout import DATA_LENGTH, VARIABLE, layouts

    lay = layouts()
    nest = VARIABLE.content  # the variable part: csbora, then csvardata
    assert isinstance(nest, Nest)
    fixed, bora = lay.logd.size, lay.bora.size
    assert fixed is not None and bora is not None
    return FormatDoc(
        name="csq1logp", title="IBM MQ for z/OS CSQ1LOGP EXTRACT(YES) records (CSQ4LOGD)",
        big=True, encoding=lay.codepage,
        variants=("character fields in code page 037 (--codepage 500, 1047, 1140, ...); "
                  "binary fields always big-endian",
                  "framing: RDW per record (FTP with `quote site rdw`), BDW + RDW blocks, or "
                  "none (plain binary FTP: boundaries recomputed from ldatalen)"),
        notes=(f"The fixed part is {fixed} bytes (csrecorddate .. lsegment). IBM's table puts "
               f"csbora at offset {fixed} \"if csverb is ALTER\"; whether other records carry "
               "the byte is not documented, so each record is resolved from its RDW length: "
               f"{fixed + bora} + ldatalen bytes after the RDW means csbora is present, "
               f"{fixed} + ldatalen means it is not. The listing says which and why.",
               "csrecorddate (`yyyy.ddd hh:mm:ss.thm`) is z/OS local time of a zone the record "
               "does not name: it stays text and is parsed to a naive timestamp. dtodout and "
               "dtime are STCK values (UTC). URIDs, RBAs and message keys are shown in hex.",
               "A message longer than one record is split into segments numbered by lsegment "
               "(1, 2, ...); `mqtool extract --messages` joins them.",
               "A text-mode (ASCII) transfer corrupts the binary fields; mqtool recognises it "
               "and refuses it."),
        records=(
            RecordDoc("RDW", lay.rdw, "record descriptor word: length of the record including "
                      "the RDW, spanning flags",
                      descriptions={"length": "record length, the RDW's 4 bytes included",
                                    "spanning": "segment flags of a spanned record (zero)"}),
            RecordDoc("BDW", lay.bdw, "block descriptor word of a BDW + RDW block",
                      descriptions={"length": "block length, the BDW's 4 bytes included",
                                    "flags": "zero"}),
            RecordDoc("CSQ4LOGD", lay.logd, "fixed part of an EXTRACT record",
                      data=nest.rest, descriptions=LOGD_TEXT,
                      members=(Member(nest.name, nest.record,
                                      when=f"_io.size == {fixed + bora} + {DATA_LENGTH}",
                                      doc=f"present when the record has {fixed + bora} + "
                                          "ldatalen bytes after the RDW"),)),
            RecordDoc("CSBORA", lay.bora, "before/after image flag of ALTER records",
                      descriptions={"csbora": "if csverb is ALTER: whether the data is the "
                                    "before or the after copy of the object"}),
        ),
        frame=Frame("RDW", "length", "CSQ4LOGD"),
        top=(Part("records", "record", repeat="eos"),),
        commands=("decode csq1logp", "extract", "spark-extract"),
    )


def _sas() -> FormatDoc:
    from mqtool.formats.sas.layout import ENTRIES, HEADER_MESSAGE, PROFILES, layouts

    lay = layouts()
    names = {"header": "HEADER", "entry": "ATTACHMENT", "count": "COUNT", "fileinfo": "FILEINFO",
             "record": "RECORD", "text_record": "TEXT_RECORD", "typeid": "TYPE",
             "dsdef": "DSDEF", "vardef": "VARIABLE", "index": "INDEX"}
    titles = {
        "HEADER": "attachment header (MsgType 100000), its ATTACHMENT entries after it",
        "ATTACHMENT": "one attachment of the header: type, correlid, qualifiers, description",
        "COUNT": "count message: the number of sequenced messages of an attachment",
        "FILEINFO": "first message of an external file: record length and file size",
        "RECORD": "one record of an external binary file",
        "TEXT_RECORD": "one record of an external text file",
        "TYPE": "first word of every data set message",
        "DSDEF": "data set definition (data set message type 1)",
        "VARIABLE": "one variable definition (data set message type 2)",
        "INDEX": "one index definition (data set message type 4)",
    }
    texts = {
        "HEADER": {"header_correlid": "CorrelId of this header message",
                   "original_msgtype": "MsgType of the application message",
                   "original_correlid": "CorrelId the application message was sent with",
                   "message_correlid": "CorrelId of the application message in this set",
                   "num_attachments": "number of ATTACHMENT entries that follow"},
        "ATTACHMENT": {"type": "attachment type",
                       "correlid": "CorrelId of the attachment's messages: a 16-byte prefix, "
                                   "the sequence number, 4 bytes of zero",
                       "qualifier1": "FILENAME or FILEREF (external file), library (data set)",
                       "qualifier2": "the sender's file name, or the member (data set)",
                       "description": "the sender's description",
                       "minor_version": "version, minor part", "major_version": "version, major part"},
        "COUNT": {"count": "number of sequenced messages of the attachment"},
        "FILEINFO": {"lrecl": "record length", "filesize": "file size in bytes"},
    }
    records = []
    for attr, name in names.items():  # the header's entries: the composition's counted repeat
        members = (Member(f"{ENTRIES.name}s", str(ENTRIES.item), repeat=ENTRIES.count or "eos"),) \
            if name == HEADER_MESSAGE.record else ()
        records.append(RecordDoc(name, getattr(lay, attr), titles[name], members=members,
                                 descriptions=texts.get(name, {})))
    profiles = ", ".join(f"{k} ({s.describe()})" for k, s in PROFILES.items())
    return FormatDoc(
        name="sas-attachment",
        title="SAS Application Messaging attachments over IBM MQ and MSMQ",
        big=True, both_orders=True, encoding="cp037",
        variants=("byte order big or little, C `long` of 4 or 8 bytes, code page, and whether "
                  "each character string is followed by a NUL byte: detected from the header "
                  "(each variant is tried; the one that parses it exactly wins), or from the "
                  "MQMD's Encoding and CodedCharSetId when the dump has them",
                  f"sender profiles: {profiles}"),
        notes=("A set of MQ messages carries one application message with attachments: the "
               "header (MsgType 100000) names the attachments and their correlids; then the "
               "application message; then, per attachment, its sequenced messages 1..N "
               "(MsgType 100001, CorrelId = the attachment's 16-byte prefix, a 4-byte sequence "
               "number and 4 bytes of zero) and last a COUNT message holding N.",
               "Strings are a length word, the characters, and (in most variants) a NUL byte "
               "the length does not count: `<name>_len`, `<name>`, `<name>_nul`.",
               "SAS numbers in observations are IBM hexadecimal floating point from z/OS and "
               "IEEE elsewhere; missing values (`.`, `.A`-`.Z`, `._`) are recognised."),
        records=tuple(records),
        top=(Part("header", "HEADER", doc="the attachment header message"),),
        commands=("decode sas-attachment", "reassemble attachment", "build-request sas-attachment"),
    )


def _osb_composed() -> dict[str, tuple[str, str, str]]:
    """What the redolog entry's declaration says follows a record's fields: (data, the
    field holding its length, what it holds)."""
    from mqtool.compose import describe
    from mqtool.compose.prefixed import describe as describe_prefixed
    from mqtool.formats.osb.compose import ENTRY, INTENT_LIST, SEGMENTS

    t = ENTRY.trailing
    assert t is not None
    return {ENTRY.layouts[0]: (t.name, t.length, "the intent list: " + describe(INTENT_LIST)),
            "R1HDR": (SEGMENTS.name + "s", "", describe_prefixed(SEGMENTS))}


def _osb() -> FormatDoc:
    from mqtool.formats.osb.layout import layouts, usrextpl_layout, usrextpl_names

    lay = layouts()
    titles = {
        "parmlist": ("PARMLIST", "Redolog exit parameter list"),
        "header": ("RLHDR", "redolog header"),
        "parmset": ("PARMSET", "Parameter Setting block"),
        "r2hdr": ("R2HDR", "format-2 intent list header"),
        "r2body": ("R2BODY", "format-2 intent body (table-level request)"),
        "r2parea": ("R2PAREA", "format-2 parameter area length"),
        "parm": ("PARM", "one parameter of the format-2 parameter area"),
        "keyname": ("R2BKEY", "format-2 key name"),
        "trailer": ("R2TRAILER", "the 2 bytes the passed length counts after the list"),
        "r1hdr": ("R1HDR", "format-1 intent list header"),
        "r1seg": ("R1SEG", "format-1 update segment length"),
        "r1req": ("R1REQ", "format-1 request prefix (mqtool's own synthetic layout)"),
        "r1browl": ("R1BROWL", "format-1 row length"),
        "r1bf": ("R1BF", "format-1 field: length and value"),
    }
    said = _osb_composed()
    records = [RecordDoc(name, getattr(lay, attr), title, data=said.get(name, ("", "", ""))[0],
                         data_size=said.get(name, ("", "", ""))[1],
                         data_doc=said.get(name, ("", "", ""))[2])
               for attr, (name, title) in titles.items()]
    records.insert(0, RecordDoc("USREXTPL", usrextpl_layout(usrextpl_names(4)),
                                "user exit parameter list: one fullword per exit (4 shown; "
                                "the number and order depend on the installation)"))
    return FormatDoc(
        name="redolog", title="TIBCO Object Service Broker user-exit data (redolog)",
        big=True, encoding=lay.codepage,
        variants=("big-endian; character fields in code page 037 (--codepage for others)",),
        notes=("The manual lost most of its layout tables, so each field says how sure it is: "
               "fields with no note are documented or proven by the manual's dumps; "
               "`inferred` fields are reconstructed; `unknown` words are named by their offset "
               "(`unk_0c`) and shown in hex; `synthetic` fields belong to mqtool's own "
               "format-1 layout, used by its builders and never found in real data.",
               "The redolog header is followed by the intent list (rl_intent_len bytes) in "
               "format 1 (row updates) or format 2 (table-level requests, R2HDR + R2BODY)."),
        records=tuple(records),
        commands=("decode redolog",),
    )


def _matqmsg() -> FormatDoc:
    from mqtool.formats.matqmsg.layout import (
        MESSAGES,
        RECEIVER,
        RECEIVER_TEMPLATE,
        message_layout,
        selection_layout,
    )

    head = RECEIVER_TEMPLATE.name  # the receiver, then its entries as the composition counts them
    count = f"{head}.{MESSAGES.count}" if MESSAGES.count else "eos"

    return FormatDoc(
        name="matqmsg", title="IBM i MI instruction MATQMSG (Materialize Queue Messages) templates",
        big=True, encoding="cp037",
        variants=("big-endian; key and message text in code page 037 (--codepage, or binary)",
                  "the size of each message entry's key and text (K and T) comes from the "
                  "selection template's key_bytes and text_bytes"),
        notes=("The receiver holds a 32-byte header and one entry per message materialized: "
               "16 bytes of attributes, K key bytes, T text bytes. K and T are 0 or multiples "
               "of 16, K at most 256 and T at most 65,536.",
               "enqueue_time is an MI time-of-day value: bit 51 counts microseconds, "
               "X'8000000000000000' is 2000-01-01 00:00 UTC (IBM i keeps its clock in UTC)."),
        records=(
            RecordDoc("RECEIVER", RECEIVER, "receiver (materialization) template header",
                      descriptions={
                          "bytes_provided": "bytes the caller provided for the template",
                          "bytes_available": "bytes the complete materialization needs",
                          "messages_available": "number of messages materialized",
                          "messages_on_queue": "number of messages on the queue",
                          "max_message_size": "maximum size of a message on the queue",
                          "key_size": "key length of the queue"}),
            RecordDoc("MESSAGE", message_layout(0, 0),
                      "one message entry of the receiver",
                      sizes={"key": "_root.key_bytes", "text": "_root.text_bytes"},
                      descriptions={"enqueue_time": "when the message was enqueued (MI time)",
                                    "message_length": "length of the whole message text",
                                    "key": "the message's key, K bytes",
                                    "text": "the message text, T bytes (as much as fits)"}),
            RecordDoc("SELECTION", selection_layout(0, 0),
                      "message selection template (operand 3), its key after it",
                      sizes={"key": "_io.size - _io.pos"},
                      descriptions={
                          "selection": "bits 0-3 selection type (all, first, last, keyed), "
                                       "bits 4-7 key relationship",
                          "key_bytes": "K: key bytes to materialize per message",
                          "text_bytes": "T: message text bytes to materialize per message",
                          "options": "materialize options: bit 0 on = concurrent mode",
                          "key": "the key to compare with (keyed selection)"}),
        ),
        params={"key_bytes": "K: key bytes per message entry (selection template key_bytes)",
                "text_bytes": "T: text bytes per message entry (selection template text_bytes)"},
        top=(Part(head, RECEIVER_TEMPLATE.record), Part(MESSAGES.name, str(MESSAGES.item), repeat=count)),
        commands=("decode matqmsg", "build-request matqmsg"),
    )


# The MQ headers' chained fields: what each says about the data that follows the header
MQ_CHAINED_TEXT = {
    "strucid": "structure identifier", "version": "structure version",
    "struclength": "length of the header, with what trails its fixed part",
    "encoding": "numeric encoding of the data that follows",
    "codedcharsetid": "character set (CCSID) of the data that follows",
    "format": "format name of the data that follows", "flags": "flags",
}
MQ_HEADERS = {  # record -> (title, descriptions beyond the chained fields)
    "MQDLH": ("dead-letter header (Format MQDEAD)", {
        "reason": "why the message was put on the dead-letter queue (MQRC_* or MQFB_*)",
        "destqname": "queue the message was for", "destqmgrname": "its queue manager",
        "putappltype": "type of the application that put it on the dead-letter queue",
        "putapplname": "its name", "putdate": "date put on the dead-letter queue, YYYYMMDD",
        "puttime": "time put on the dead-letter queue, HHMMSSTH"}),
    "MQRFH2": ("rules and formatting header version 2 (Format MQHRF2), then NameValueLength "
               "+ NameValueData (one XML folder) pairs to StrucLength", {
                   "namevalueccsid": "CCSID of the folders: 1208, 1200, 13488 or 17584"}),
    "MQRFH": ("rules and formatting header version 1 (Format MQHRF), then the "
              "NameValueString to StrucLength", {}),
    "MQXQH": ("transmission-queue header (Format MQXMIT), then the original MQMD version 1", {
        "remoteqname": "destination queue at the remote queue manager",
        "remoteqmgrname": "the remote queue manager"}),
    "MQTM": ("trigger message (Format MQTRIG); nothing follows it", {
        "qname": "queue that triggered", "processname": "process definition",
        "triggerdata": "trigger data", "appltype": "type of the application to start",
        "applid": "application to start", "envdata": "environment data",
        "userdata": "user data"}),
    "MQTMC2": ("trigger message, character form (what a triggered program is passed)", {
        "qmgrname": "queue manager name (version 2)"}),
    "MQCIH": ("CICS bridge header (Format MQCICS), version 2", {
        "returncode": "bridge return code (MQCRC_*)", "reason": "MQRC_* of a failed call",
        "uowcontrol": "unit-of-work control (MQCUOWC_*)", "function": "MQ call name",
        "transactionid": "CICS transaction to attach"}),
    "MQIIH": ("IMS bridge header (Format MQIMS)", {
        "ltermoverride": "logical terminal override", "mfsmapname": "MFS map name",
        "transtate": "transaction state", "commitmode": "commit mode",
        "securityscope": "security scope"}),
    "MQMDE": ("message descriptor extension (Format MQHMDE): the MQMD version 2 fields", {
        "groupid": "group identifier", "msgseqnumber": "sequence number in the group",
        "offset": "segment offset", "msgflags": "message flags",
        "originallength": "length of the original message"}),
    "MQWIH": ("work information header (Format MQHWIH)", {
        "servicename": "service name", "servicestep": "service step name",
        "msgtoken": "message token"}),
    "MQRMH": ("reference message header (Format MQHREF), then the strings its offsets "
              "point to", {"objecttype": "object type", "datalogicallength": "length of the "
                           "data the message refers to"}),
    "MQDH": ("distribution header (Format MQHDIST), then RecsPresent MQOR and MQPMR records", {
        "putmsgrecfields": "which MQPMR fields are present (MQPMRF_*)",
        "recspresent": "number of MQOR (and MQPMR) records",
        "objectrecoffset": "offset of the first MQOR from the MQDH",
        "putmsgrecoffset": "offset of the first MQPMR from the MQDH"}),
    "MQOR": ("object record of an MQDH: one destination", {
        "objectname": "queue name", "objectqmgrname": "queue manager name"}),
    "LLZZ": ("prefix of an IMS message segment, after an MQIIH or in Format MQIMSVS: the "
             "segment's data follows (the first starts with the IMS transaction code)", {
                 "ll": "length of the segment, LL and ZZ included",
                 "zz": "reserved for IMS"}),
}


def _mq_headers() -> tuple[RecordDoc, ...]:
    from mqtool.formats.mq.layout import header_layout

    out = []
    for name, (title, texts) in MQ_HEADERS.items():
        layout = header_layout(name)
        known = {k: v for k, v in MQ_CHAINED_TEXT.items() if k in layout.names}
        out.append(RecordDoc(name, layout, title, descriptions={**known, **texts}))
    return tuple(out)


def _mq() -> FormatDoc:
    from mqtool.formats.mq.compose import CHAIN, resolver
    from mqtool.formats.mq.mqmd import V1_FIELD_COUNT, mqmd_layout

    layout = mqmd_layout()
    return composed(FormatDoc(
        name="mq", title="IBM MQ message descriptor (MQMD) and the MQ headers that follow it",
        big=True, both_orders=True, encoding="latin-1",
        variants=("version 1: the first " + str(V1_FIELD_COUNT) + " fields "
                  f"({mqmd_layout(version=1).size} bytes); version 2: all "
                  f"({layout.size} bytes)",
                  "big- or little-endian; eyecatcher and character fields in ASCII or EBCDIC"),
        notes=("Queue dumps (dmpmqmsg files, amqsbcg listings, MQMD-prefixed binaries, "
               "mqtool directories) carry each message's MQMD; MsgType, CorrelId, Encoding and "
               "CodedCharSetId choose and steer the decoder of the body.",
               "The MQMD's Format names the first MQ header of the body (MQDEAD: MQDLH, "
               "MQHRF2: MQRFH2, MQXMIT: MQXQH, ...); each header's Format, Encoding and "
               "CodedCharSetId describe what follows it, and its own integers and characters "
               "are in the Encoding and CCSID of the structure before it. The chain ends at a "
               "Format that names no header: the application data."),
        records=(RecordDoc("MQMD", layout, "message descriptor, version 2",
                           descriptions=MQMD_TEXT), *_mq_headers()),
        top=(Part("mqmd", "MQMD"),),
        composition=CHAIN, resolve=resolver(),
        commands=("decode mq", "build-request mq", "decode auto", "reassemble attachment",
                  "decode sas-attachment"),
    ))


# the documentation of each format of ``registry.CODECS`` (names, aliases and order are the
# registry's)
FORMATS: dict[str, Callable[[], FormatDoc]] = {
    "urb": _urb,
    "csq1logp": _csq1logp,
    "sas-attachment": _sas,
    "redolog": _osb,
    "matqmsg": _matqmsg,
    "mq": _mq,
}


@cache
def format_doc(name: str) -> FormatDoc:
    """The documentation model of one format (a name or alias of ``registry.CODECS``)."""
    from mqtool.registry import codec

    return FORMATS[codec(name).name]()


def formats() -> Iterator[FormatDoc]:
    from mqtool.registry import names

    for name in names():
        yield format_doc(name)


def lookup(selector: str) -> tuple[FormatDoc, RecordDoc | None]:
    """``urb`` -> (urb, None); ``urb.URBH`` (any case) -> (urb, URBH)."""
    name, _, record = selector.partition(".")
    fmt = format_doc(name)
    if not record:
        return fmt, None
    try:
        return fmt, fmt.record(record)
    except KeyError:
        raise InputError(f"{fmt.name} has no record {record!r}; its records: "
                         + ", ".join(r.name for r in fmt.records)) from None


def ksy(name: str) -> str:
    """The ``.ksy`` of a format, with the Kaitai types its top level needs."""
    from mqtool.render.layouts import ksy as render_ksy

    return render_ksy(format_doc(name))
