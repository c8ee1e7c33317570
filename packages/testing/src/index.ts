/**
 * @since 0.1.0
 */
export * as Loopback from "./Loopback.ts"
export * as RecordingHttpClient from "./RecordingHttpClient.ts"
export * as RequestLog from "./RequestLog.ts"
export * as Simulated from "./Simulated.ts"
export * as SignIn from "./SignIn.ts"
export * as TransportTest from "./TransportTest.ts"
