#ifndef PERCUSSION_CONTACT_CONTACT_POINT_OUTPUT_H
#define PERCUSSION_CONTACT_CONTACT_POINT_OUTPUT_H

#include <percussion/contact/contact_geometry.h>

#include <string>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /** Contact status for output (Lemma 1 of the paper: take-off / stick / slide). */
    enum class ContactStatus : int
    {
      open  = 0,
      stick = 1,
      slip  = 2
    };

    /**
     * Per-point fields computed by the contact solver, for the owned points of a ContactGeometry
     * in the order of owned_points(). Each array may be left empty (then it is not written).
     */
    struct ContactPointFields
    {
      /** One status per point. */
      std::vector<ContactStatus> status;
      /** Reaction or impulse in the local frame (n, t1, t2): dim entries per point. */
      std::vector<double> reaction;
      /** Tangential (slip) velocity in the local frame: dim entries per point (first = normal). */
      std::vector<double> slip_velocity;
    };

    /**
     * Write the contact points as a VTU point cloud (one VTK_VERTEX per point) with the fields
     * gap, normal, tangent1 (tangent2 in 3D), pair, friction, restitution, active, and, if given,
     * status, reaction (local), reaction_vector (global Σ r_k frame_k), slip_velocity.
     *
     * Files: @p directory/@p basename-NNNNN.RRRR.vtu per rank and, if the communicator has more
     * than one rank, @p basename-NNNNN.pvtu written by rank 0. With one rank only
     * @p basename-NNNNN.vtu. Returns the name (without directory) of the file to reference from a
     * .pvd collection (the .pvtu, or the single .vtu). Collective. Throws InputError if an array
     * has the wrong size or a file cannot be written.
     */
    template <int dim>
    std::string write_contact_points_vtu(const ContactGeometry<dim> &geometry,
                                         const ContactPointFields &  fields,
                                         const std::string &         directory,
                                         const std::string &         basename,
                                         unsigned int                step);
  } // namespace Contact
} // namespace percussion

#endif
