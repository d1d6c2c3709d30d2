"""Wire formats (layer 3): tools out, calls in, results back, for every API and text dialect.

Public surface (everything else is private to this package):
    negotiate(...)            -> WirePlan
    build_request(...)        -> request body for the plan's API
    parse_response(...)       -> ParsedResponse from a non-streamed body
    new_stream(...)           -> StreamAssembler (feed provider chunks, get StreamEvents)
    parse_text(...)           -> ParsedResponse from raw assistant text (agent parse, eval)
"""
