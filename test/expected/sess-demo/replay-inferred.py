from typing import Any

from pydantic import BaseModel, Field


class TransactionsItem(BaseModel):
    date: str
    description: str
    amount: float
    from_: str | None = Field(default=None, alias='from')


class ScrapeResult(BaseModel):
    account: str
    currency: str
    balance: float
    transactions: list[TransactionsItem]
    next_page: Any | None = Field(default=None, alias='nextPage')


session.goto(url='https://example.com/login')
session.click(selector='button#accept-cookies')
session.fill(selector='#email', value='dev@example.com')
session.click(selector='button[type=submit]')
session.wait(time_ms=1500)
session.scrape(instructions='Extract the account balance', response_format={'type': 'object', 'properties': {'result': {'type': 'string'}}})
session.scrape(instructions="Extract the account holder's name and plan", response_format={'type': 'object', 'properties': {'name': {'type': 'string'}, 'plan': {'type': 'string'}}, 'required': ['name', 'plan']})
session.click(selector='a[href="/transactions"]')
result = session.scrape(instructions='Extract the recent transactions', response_format=ScrapeResult)
