#!/usr/bin/python3
"""A drag source for X (GTK 3): a window with one button that drags the folder given as
file:// URI (text/uri-list), as a file manager would. tests/manual/real_folder.mjs presses it
with xdotool and drops it on the page, to check a dropped folder's handle
(DataTransferItem.getAsFileSystemHandle). Debian's python3-gi and gir1.2-gtk-3.0."""
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

folder = sys.argv[1]
uri = "file://" + folder.rstrip("/") + "/"
win = Gtk.Window(title="evalboard drag source")
win.move(int(sys.argv[2]) if len(sys.argv) > 2 else 1300, 300)
win.set_default_size(260, 120)
button = Gtk.Button(label="drag " + folder.rstrip("/").rsplit("/", 1)[-1])
button.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
button.drag_source_add_uri_targets()
button.connect("drag-data-get", lambda w, ctx, data, info, t: data.set_uris([uri]))
button.connect("drag-end", lambda *a: print("drag-end", flush=True))
win.add(button)
win.connect("destroy", Gtk.main_quit)
win.show_all()
print("ready", flush=True)
Gtk.main()
