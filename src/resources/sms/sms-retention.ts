/**
 * Retention of short messages, as for the records (decisions section 11): key, wording, default days. A
 * month: long enough to look a delivery up, short enough that a busy network's messages do not pile up.
 */
export const SMS_RETENTION = { recordType: 'sms_messages', label: 'SMS message', defaultDays: 30 } as const;
