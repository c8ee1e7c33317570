/**
 * The `meta` of the events the webhook tests deliver by hand (signed with
 * the listener's secret, not sent by the simulator).
 */
export const handMeta = {
  version: "4.0",
  webhookId: "wh_hand",
  webhookName: "By hand",
  deliveryId: "dlv_hand",
  deliveredAt: 1756202400000,
  signalCount: 0,
  mode: "LIVE"
} as const
