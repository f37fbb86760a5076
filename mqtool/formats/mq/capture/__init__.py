"""IBM MQ TCP traffic in pcap / pcapng captures: packets, TCP reassembly, the MQ framing."""
