import { Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { suite } from "@connected-vehicle/testing/HttpClientBehaviour"

// every HttpClient the SDK ships or documents
suite("UndiciHttpClient.layer", UndiciHttpClient.layer())
suite("Transport.layerHttpClient (Node)", Transport.layerHttpClient)
suite("NodeHttpClient.layerUndici", NodeHttpClient.layerUndici)
suite(
  "FetchHttpClient, redirect: manual",
  FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" })))
)
suite("FetchHttpClient (follows redirects)", FetchHttpClient.layer, { followsRedirects: true })
