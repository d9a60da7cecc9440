"""Fakes of what Built-It talks to, for the tests, the benchmarks and trying it
offline: a fake OpenRouter over real HTTP on 127.0.0.1 (openrouter, handler,
script, events) that answers, unless scripted, with the product's own demo
(demo), and sample images and fonts made in memory (images). No app imports
them (an import contract); they are not installed with the app.
"""
