"""The offline demo model: a scripted stand-in for a provider, served in-process
(reading.py reads the request as a model would, planner.py decides, site.py
writes, transport.py speaks OpenRouter's protocol). The product reaches it only
through chat.providers.client_for, as it reaches any provider."""
