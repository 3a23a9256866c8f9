"""What a person or a program is shown: a seat's view, the projections folded from a log, the
replay timeline, text and HTML renderings and the offline share page.

A seat's view holds only what that seat may see; text taken from a log is escaped here.
"""
