from django.core.asgi import get_asgi_application

from federation.environment import configure_or_exit

configure_or_exit()  # a configuration error is one line naming the variable, not a traceback
application = get_asgi_application()
