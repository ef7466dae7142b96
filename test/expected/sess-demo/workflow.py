from service_sdk import Client

client = Client()


def run():
    session = client.sessions.create()
    session.goto(url='https://example.com/login')
    session.click(selector='button#accept-cookies')
    session.fill(selector='#email', value='dev@example.com')
    session.click(selector='button[type=submit]')
    session.wait(time_ms=1500)
    session.scrape(instructions='Extract the account balance')
    session.scrape(instructions="Extract the account holder's name and plan", response_format={'type': 'object', 'properties': {'name': {'type': 'string'}, 'plan': {'type': 'string'}}, 'required': ['name', 'plan']})
    session.click(selector='a[href="/transactions"]')
    session.scrape(instructions='Extract the recent transactions')


if __name__ == "__main__":
    run()
