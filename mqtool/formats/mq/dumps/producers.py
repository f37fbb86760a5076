"""The queue-dump producers mqtool reads and writes, declared once: the name each is known
by (``--input-format``, ``sniff``'s answer, ``identify``) and what it is, in words.

IBM MQ, dmpmqmsg (qload) command; IBM MQ, amqsbcg sample program; IBM SupportPac IH03
(RFHUtil); the MQMD-prefixed binary files many tools save; mqtool's own directory dump
(``index.jsonl`` next to the bodies); network captures of IBM MQ TCP traffic, whose messages
are those on the wire (``formats.mq.capture``; libpcap "pcap-savefile" and the pcapng
specification for the files).
"""

CAPTURES: dict[str, str] = {
    "pcap": "pcap capture of IBM MQ TCP traffic (tcpdump, Wireshark)",
    "pcapng": "pcapng capture of IBM MQ TCP traffic (Wireshark, dumpcap, tcpdump)",
}

PRODUCERS: dict[str, str] = {
    "dmpmqmsg": "IBM MQ dmpmqmsg queue dump",
    "amqsbcg": "IBM MQ amqsbcg browse listing",
    "rfhutil": "RFHUtil save file",
    "mqmd-binary": "MQMD-prefixed binary messages",
    "mqtool-dir": "mqtool queue-dump directory index",
    **CAPTURES,
}
