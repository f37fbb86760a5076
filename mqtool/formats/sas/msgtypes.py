"""The MQMD MsgType values of SAS attachment messages (SAS Institute, SAS Application
Messaging attachments over IBM MQ: the attachment header, then every subordinate message:
application message, file and data set messages, count messages)."""

HEADER_MSGTYPE = 100000
SUBORDINATE_MSGTYPE = 100001
