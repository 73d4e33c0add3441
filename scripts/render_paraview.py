"""Renders a picture of a percussion run with ParaView (pvpython / pvbatch): the deformed bodies
coloured by von Mises stress and, if the run had contact, the contact points coloured by their
status (open / stick / slip).

    xvfb-run -a pvbatch scripts/render_paraview.py OUTPUT_DIRECTORY [--output picture.png]
        [--time T] [--warp FACTOR] [--view iso|x|y|z|-x|-y|-z] [--size 1000x700] [--label TEXT]
        [--clip x|y|z] [--range MIN,MAX]

OUTPUT_DIRECTORY holds solution.pvd (and contact.pvd). --time picks the output record nearest to T
(default: the last); --warp scales the displacement of the deformed shape (default 1: true scale; the contact points,
written at their true positions, are drawn only then — note that the warp also scales rigid motion);
--view looks along an axis or from an isometric direction (default iso); --clip cuts the bodies
by the plane through their center normal to that axis (the inside shows); --range fixes the stress
colour range (default: the data range at that time). Needs ParaView 5.11
(Debian: paraview, python3-paraview; headless: xvfb). Written for pvbatch; pvpython works too.
"""
import argparse
import os
import sys

from paraview.simple import (Clip, ColorBy, CreateView, GetColorTransferFunction, GetScalarBar, PVDReader, Render,
                             ResetCamera, SaveScreenshot, SetActiveView, Show, Text, WarpByVector)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory")
    parser.add_argument("--output", default=None)
    parser.add_argument("--time", type=float, default=None)
    parser.add_argument("--warp", type=float, default=1.0)
    parser.add_argument("--view", default="iso", choices=["iso", "x", "y", "z", "-x", "-y", "-z"])
    parser.add_argument("--size", default="1000x700")
    parser.add_argument("--label", default=None)
    parser.add_argument("--clip", default=None, choices=["x", "y", "z"])
    parser.add_argument("--range", default=None)
    args = parser.parse_args()

    solution_file = os.path.join(args.directory, "solution.pvd")
    if not os.path.exists(solution_file):
        sys.exit("render_paraview: error: no solution.pvd in '%s' (was 'Output/VTU interval' 0?)" % args.directory)
    try:
        width, height = (int(x) for x in args.size.split("x"))
    except ValueError:
        sys.exit("render_paraview: error: --size must be WIDTHxHEIGHT, e.g. 1000x700")
    output = args.output or os.path.join(args.directory, "picture.png")

    solution = PVDReader(FileName=solution_file)
    times = list(solution.TimestepValues) if solution.TimestepValues else [0.0]
    time = times[-1] if args.time is None else min(times, key=lambda t: abs(t - args.time))

    view = CreateView("RenderView")
    view.ViewSize = [width, height]
    view.Background = [1, 1, 1]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:
        pass
    view.OrientationAxesVisibility = 1
    view.ViewTime = time
    SetActiveView(view)

    warped = WarpByVector(Input=solution)
    warped.Vectors = ["POINTS", "displacement"]
    warped.ScaleFactor = args.warp
    shown = warped
    if args.clip:
        warped.UpdatePipeline(time)
        bounds = warped.GetDataInformation().GetBounds()
        center = [0.5 * (bounds[0] + bounds[1]), 0.5 * (bounds[2] + bounds[3]), 0.5 * (bounds[4] + bounds[5])]
        shown = Clip(Input=warped)
        shown.ClipType = "Plane"
        shown.ClipType.Origin = center
        shown.ClipType.Normal = {"x": [1, 0, 0], "y": [0, 1, 0], "z": [0, 0, 1]}[args.clip]
        shown.Invert = 1
    display = Show(shown, view)
    ColorBy(display, ("POINTS", "von_mises_stress"))
    lut = GetColorTransferFunction("von_mises_stress")
    lut.ApplyPreset("Cool to Warm", True)
    if args.range:
        try:
            low, high = (float(x) for x in args.range.split(","))
        except ValueError:
            sys.exit("render_paraview: error: --range must be MIN,MAX")
        lut.RescaleTransferFunction(low, high)
    else:
        display.RescaleTransferFunctionToDataRange(True, False)
    display.SetScalarBarVisibility(view, True)
    scalar_bar = GetScalarBar(lut, view)
    scalar_bar.Title = "von Mises stress [Pa]"
    scalar_bar.ComponentTitle = ""
    scalar_bar.TitleColor = [0, 0, 0]
    scalar_bar.LabelColor = [0, 0, 0]
    display.Opacity = 0.85 if os.path.exists(os.path.join(args.directory, "contact.pvd")) else 1.0

    # The contact points are written at their current positions X + q: drawn with the body at true
    # scale only (with an exaggerated displacement they would float off the warped body).
    contact_file = os.path.join(args.directory, "contact.pvd")
    if os.path.exists(contact_file) and args.warp != 1:
        print("note: contact points not drawn with --warp %g (they are at their true positions)" % args.warp)
    if os.path.exists(contact_file) and args.warp == 1:
        contact = PVDReader(FileName=contact_file)
        points = Show(contact, view)
        points.SetRepresentationType("Points")
        points.PointSize = 8
        points.RenderPointsAsSpheres = 1
        ColorBy(points, ("POINTS", "status"))
        status = GetColorTransferFunction("status")
        status.InterpretValuesAsCategories = 1
        status.Annotations = ["0", "open", "1", "stick", "2", "slip"]
        status.IndexedColors = [0.6, 0.6, 0.6, 0.1, 0.6, 0.1, 0.85, 0.1, 0.1]
        points.SetScalarBarVisibility(view, True)
        status_bar = GetScalarBar(status, view)
        status_bar.Title = "contact status"
        status_bar.ComponentTitle = ""
        status_bar.TitleColor = [0, 0, 0]
        status_bar.LabelColor = [0, 0, 0]
        status_bar.WindowLocation = "Upper Right Corner"

    label = Text(Text=(args.label + "\n" if args.label else "") + "t = %.4g s, displacement x %g" % (time, args.warp))
    label_display = Show(label, view)
    label_display.Color = [0, 0, 0]
    label_display.FontSize = 14
    label_display.WindowLocation = "Upper Left Corner"

    directions = {"iso": ([1, -1.2, 0.8], [0, 0, 1]), "x": ([1, 0, 0], [0, 0, 1]), "-x": ([-1, 0, 0], [0, 0, 1]),
                  "y": ([0, 1, 0], [0, 0, 1]), "-y": ([0, -1, 0], [0, 0, 1]), "z": ([0, 0, 1], [0, 1, 0]),
                  "-z": ([0, 0, -1], [0, 1, 0])}
    position, up = directions[args.view]
    view.CameraPosition = position
    view.CameraFocalPoint = [0, 0, 0]
    view.CameraViewUp = up
    ResetCamera(view)
    Render(view)
    SaveScreenshot(output, view, ImageResolution=[width, height])
    print("picture: " + output)


main()
